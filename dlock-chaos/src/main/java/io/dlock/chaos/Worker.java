package io.dlock.chaos;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.TuningSettings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.dlock.chaos.Event.Type.BYE;
import static io.dlock.chaos.Event.Type.HELLO;

/**
 * A worker JVM: one {@link LockClient} (default configuration but for the timeouts and {@code localHandoffs}) and,
 * per {@link Workload}, {@link WorkerArgs#threads()} threads, each an owner of its own, looping on its kind's lock,
 * semaphore or multi-lock ({@link LockLoop}) or on the latch rounds ({@link LatchLoop}) until the stop file appears. Owners of one client that contend for one lock wait for each other
 * inside the client and may hand the lock over without releasing it in Redis (local hand-offs). The JVM's own event
 * log ({@code w<n>.events}) holds its HELLO (detail: the client id, the prefix of every hold field it writes) and its
 * BYE (detail: its hand-offs per kind, {@link HandoffCounts}); each loop has its own log.
 *
 * <p>Usage: see {@link WorkerArgs#USAGE}. Exits by itself when the JVM that started it is gone.
 */
public final class Worker {
    /** Below this, a holder does not start a step (a store write takes well under a millisecond on loopback). */
    static final long MIN_VALID_MS = 100;
    /** How long a holder that found its lease gone waits for the listener before it cleans up. */
    static final long LISTENER_WAIT_MS = 2500;
    /** The longest a waiting acquisition waits. */
    static final long WAIT_MS = 3000;
    /** A fair-lock waiter's slot: longer than any wait, short enough that a killed waiter's entry goes soon. */
    static final long FAIR_WAIT_TIMEOUT_MS = 5000;
    /** How long a starting worker keeps trying to connect. */
    static final long CONNECT_FOR_MS = 20_000;

    private Worker() {
    }

    public static void main(String[] a) throws Exception {
        WorkerArgs args;
        try {
            args = WorkerArgs.parse(a);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        dieWithParent();
        EventLog log = EventLog.create(args.outDir().resolve(args.id() + ".events"), args.id());
        HandoffListener handoffs = new HandoffListener();
        LockClient client = connect(LockClientConfig.builder()
                .redisUri(args.redisUri())
                .watchdogTimeout(Duration.ofMillis(args.watchdogMs()))
                .commandTimeout(Duration.ofMillis(args.commandTimeoutMs()))
                .fairLockWaitTimeout(Duration.ofMillis(FAIR_WAIT_TIMEOUT_MS))
                .tuning(TuningSettings.builder().localHandoffs(args.localHandoffs()).build())
                .build());
        client.addEventListener(handoffs);
        List<LockLoop> loops = new ArrayList<>();
        List<LatchLoop> latchLoops = new ArrayList<>();
        for (Workload kind : Workload.values()) {
            for (int t = 0; t < args.threads(); t++) {
                if (kind.holds()) {
                    loops.add(new LockLoop(args, kind, t, client));
                } else {
                    latchLoops.add(new LatchLoop(args, t, client));
                }
            }
        }
        client.addLeaseLostListener(event -> loops.forEach(loop -> loop.leaseLost(event)));
        log.record(HELLO, client.getId());
        List<Thread> threads = new ArrayList<>();
        for (LockLoop loop : loops) {
            Thread t = new Thread(loop, loop.source());
            threads.add(t);
            t.start();
        }
        for (LatchLoop loop : latchLoops) {
            Thread t = new Thread(loop, loop.source());
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        String handedOff = handoffs.detail();
        client.close();
        log.record(BYE, handedOff);
        log.close();
        System.exit(0);
    }

    /**
     * Connects, retrying for up to {@value #CONNECT_FOR_MS} ms: a worker may start while Redis is faulted, or while
     * the machine is busy starting its peers (the connect timeout is the short command timeout).
     */
    private static LockClient connect(LockClientConfig config) throws InterruptedException {
        long deadline = System.nanoTime() + CONNECT_FOR_MS * 1_000_000L;
        while (true) {
            try {
                return LockClient.create(config);
            } catch (LockException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getName() + ": " + (message == null ? "" : message);
    }

    /** Exits when the parent JVM is gone, so that a killed test run leaves no worker behind. */
    private static void dieWithParent() {
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        if (parent == null) {
            return;
        }
        Thread watcher = new Thread(() -> {
            while (parent.isAlive()) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
            }
            Runtime.getRuntime().halt(3);
        }, "die-with-parent");
        watcher.setDaemon(true);
        watcher.start();
    }
}
