package io.dlock.it.support;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;

import java.time.Duration;

/**
 * Child JVM of {@code LeaderElectionIT}: a candidate that prints {@code ELECTED <epoch>} once it leads, then keeps
 * leading (renewing) until it is killed. Gives up by itself after two minutes, or when the test JVM goes away.
 *
 * <p>Usage: {@code ElectionCandidate <redisUri> <name> <leaseMillis> <renewDeadlineMillis> <retryMillis>}.
 */
public final class ElectionCandidate {
    private ElectionCandidate() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: ElectionCandidate <redisUri> <name> <leaseMillis> <renewDeadlineMillis> "
                    + "<retryMillis>");
            System.exit(2);
        }
        CounterWorker.dieWithParent();
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(args[0]).build());
        LeaderElection election = client.getLeaderElection(args[1], LeaderElectionSettings.builder()
                .lease(Duration.ofMillis(Long.parseLong(args[2])))
                .renewDeadline(Duration.ofMillis(Long.parseLong(args[3])))
                .retryPeriod(Duration.ofMillis(Long.parseLong(args[4]))).build());
        election.addListener(new LeaderListener() {
            @Override
            public void elected(LeaderTerm term) {
                System.out.println("ELECTED " + term.epoch());
                System.out.flush();
            }
        });
        election.start();
        Thread.sleep(Duration.ofMinutes(2).toMillis());
        CounterWorker.log("not killed within two minutes, giving up");
        System.exit(5);
    }
}
