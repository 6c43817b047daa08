package io.dlock.chaos;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockLostException;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

import static io.dlock.chaos.Event.Type.ELECTED;
import static io.dlock.chaos.Event.Type.NOTE;
import static io.dlock.chaos.Event.Type.REVOKED;
import static io.dlock.chaos.Event.Type.STEP;

/**
 * A worker's candidate of the leader election {@value #NAME} (issue 44, item 7), on the worker's client, under the
 * nemesis' faults: while it leads, its task writes the term's epoch to the store's election register every
 * {@value #WRITE_EVERY_MS} ms through {@link LeaderTerm#requireValid()}, sending when that guard began; the loop
 * itself records a {@code STEP} every {@value #STEP_MS} ms (so that a silent candidate is told from a hung one) and,
 * leading, resigns now and then (one step in {@value #RESIGN_ONE_IN}), so that terms hand over. Events
 * ({@code w<n>-election}): {@code ELECTED}, {@code REVOKED} (from the listeners), the register's decisions (from the
 * store), judged by {@link ElectionChecks}.
 *
 * <p>Lease: the workers' watchdog timeout; renew deadline three quarters of it; retry period 300 ms.
 */
final class ElectionLoop implements Runnable {
    static final String NAME = "chaos:election";
    static final long WRITE_EVERY_MS = 5;
    static final long STEP_MS = 250;
    static final int RESIGN_ONE_IN = 12;

    private final String source;
    private final LockClient client;
    private final EventLog log;
    private final Path stopFile;
    private final Random random;
    private final WorkerArgs args;

    ElectionLoop(WorkerArgs args, LockClient client) {
        this.args = args;
        this.source = source(args.id());
        this.client = client;
        this.log = EventLog.create(args.outDir().resolve(source + ".events"), source);
        this.stopFile = args.stopFile();
        this.random = new Random(args.seed() * 13 + 44);
    }

    /** @return the event source of worker {@code workerId}'s candidate, {@code w<n>-election} (not a lock loop) */
    static String source(String workerId) {
        return workerId + "-election";
    }

    String source() {
        return source;
    }

    @Override
    public void run() {
        LeaderElection election = client.getLeaderElection(NAME, LeaderElectionSettings.builder()
                .lease(Duration.ofMillis(args.watchdogMs()))
                .renewDeadline(Duration.ofMillis(args.watchdogMs() * 3 / 4))
                .retryPeriod(Duration.ofMillis(300))
                .stopTimeout(Duration.ofSeconds(1)).build());
        election.addListener(new LeaderListener() {
            @Override
            public void elected(LeaderTerm term) {
                log.record(ELECTED, term.epoch(), "");
            }

            @Override
            public void revoked(LeaderTerm term, LeaderTerm.Cause cause) {
                log.record(REVOKED, term.epoch(), cause.name());
            }
        });
        election.runWhileLeader(this::write);
        election.start();
        LoopFrame.run(log, client.getId(), stopFile, () -> {
            Thread.sleep(STEP_MS);
            boolean leads = election.isLeader();
            log.record(STEP, leads ? "leads" : "candidate");
            if (leads && random.nextInt(RESIGN_ONE_IN) == 0) {
                log.record(NOTE, "resign");
                election.resign();
            }
        }, election::close);
    }

    /** The term's work: the epoch to the register through the guard, until interrupted. */
    private void write(LeaderTerm term) throws InterruptedException {
        try (StorageClient store = new StorageClient(args.storePort(), (int) args.commandTimeoutMs())) {
            while (!Thread.currentThread().isInterrupted()) {
                long guardAt = System.nanoTime();
                try {
                    store.writeEpoch(source, term.requireValid(), guardAt);
                } catch (LockLostException refused) {
                    // the term is over by its own clock: nothing written; the loop revokes it and interrupts us
                } catch (IOException e) {
                    log.record(NOTE, "election register unreachable: " + e.getMessage());
                }
                Thread.sleep(WRITE_EVERY_MS);
            }
        }
    }
}
