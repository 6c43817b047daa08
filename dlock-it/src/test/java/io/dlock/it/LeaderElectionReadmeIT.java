package io.dlock.it;

import io.dlock.LeaderElection;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's example ("Leader election"), compiled and run: keep the two in step. */
@ExtendWith(RedisExtension.class)
class LeaderElectionReadmeIT {

    /** What the example writes to: refuses an epoch below the highest it has seen. */
    static final class Ledger {
        private final List<Long> epochs = new ArrayList<>();
        private long highest;

        synchronized void append(long epoch, String entry) {
            if (epoch < highest) {
                throw new IllegalStateException("stale epoch " + epoch + " < " + highest);
            }
            highest = epoch;
            epochs.add(epoch);
        }

        synchronized int size() {
            return epochs.size();
        }
    }

    static class BillingScheduler implements AutoCloseable {
        private final LeaderElection election;

        BillingScheduler(LockClient client, Ledger ledger) {
            election = client.getLeaderElection("billing-scheduler");
            election.runWhileLeader(term -> {                  // once per term, interrupted when the term ends
                while (!Thread.currentThread().isInterrupted()) {
                    long epoch = term.requireValid();          // the epoch, or LockLostException: do not write
                    ledger.append(epoch, "next batch");        // the ledger refuses an epoch below the highest seen
                    Thread.sleep(100);
                }
            });
            election.start();                                  // never blocks: a candidate from now on
        }

        @Override
        public void close() {                                  // ends the term, stops the task, then releases
            election.close();
        }
    }

    @Test
    void theExampleRuns(LockClient client) {
        Ledger ledger = new Ledger();
        try (BillingScheduler scheduler = new BillingScheduler(client, ledger)) {
            Await.until(Duration.ofSeconds(10), () -> ledger.size() >= 3, "the leader should append");
        }
        int written = ledger.size();
        assertThat(client.heldLocks()).as("released on close").isEmpty();
        assertThat(ledger.size()).as("nothing appended after close").isEqualTo(written);
    }
}
