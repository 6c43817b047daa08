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
import static io.dlock.chaos.Event.Type.QUIESCENT;

/**
 * A worker JVM: one {@link LockClient} (default configuration but for the timeouts and {@code localHandoffs}) and,
 * per {@link Workload}, {@link WorkerArgs#threads()} threads, each an owner of its own, looping on its kind's lock,
 * semaphore or multi-lock ({@link LockLoop}) or on the latch rounds ({@link LatchLoop}), and one candidate of the
 * leader election ({@link ElectionLoop}), until the stop file appears. Owners of one client that contend for one
 * lock wait for each other inside the client and may hand the lock over without releasing it in Redis (local
 * hand-offs). The JVM's own event log ({@code w<n>.events}) holds its HELLO (detail: the client id, the prefix of
 * every hold field it writes) and its BYE (detail: its hand-offs per kind, {@link HandoffCounts}); each loop has its
 * own log.
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
        List<ReactiveLoop> reactiveLoops = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (Workload kind : Workload.values()) {
            for (int t = 0; t < args.threads(); t++) {
                if (kind == Workload.LATCH) {
                    LatchLoop loop = new LatchLoop(args, t, client);
                    threads.add(new Thread(loop, loop.source()));
                } else if (kind == Workload.MULTI_CANCEL) {
                    CancelLoop loop = new CancelLoop(args, t, client);
                    threads.add(new Thread(loop, loop.source()));
                } else if (kind.cancels()) {
                    ReactiveLoop loop = new ReactiveLoop(args, kind, t, client);
                    reactiveLoops.add(loop);
                    threads.add(new Thread(loop, loop.source()));
                } else {
                    LockLoop loop = new LockLoop(args, kind, t, client);
                    loops.add(loop);
                    threads.add(new Thread(loop, loop.source()));
                }
            }
        }
        ElectionLoop candidate = new ElectionLoop(args, client);
        threads.add(new Thread(candidate, candidate.source()));
        client.addLeaseLostListener(event -> loops.forEach(loop -> loop.leaseLost(event)));
        log.record(HELLO, client.getId());
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        log.record(QUIESCENT, heldAtQuiescence(client, reactiveLoops, args.watchdogMs()));
        String handedOff = handoffs.detail();
        client.close();
        log.record(BYE, handedOff);
        log.close();
        System.exit(0);
    }

    /**
     * What the client still counts as held of the workloads that cancel, once every loop stopped ({@code QUIESCENT}):
     * waited for (at most a lease) to be nothing, so that a release still in flight is not taken for a stranded
     * hold; a grant left to the watchdog stays.
     *
     * @return {@code held=0}, or {@code held=<n>} and what is held
     */
    private static String heldAtQuiescence(LockClient client, List<ReactiveLoop> reactiveLoops, long leaseMs)
            throws InterruptedException {
        List<String> names = new ArrayList<>();
        for (Workload kind : Workload.values()) {
            if (kind.cancels()) {
                names.addAll(kind.hashKeys());
            }
        }
        long end = System.nanoTime() + leaseMs * 1_000_000L;
        while (true) {
            List<String> held = new ArrayList<>();
            client.heldLocks().stream().filter(h -> names.contains(h.name())).forEach(h -> held.add(h.name()
                    + " owner=" + h.ownerId() + " count=" + h.holdCount() + " watchdog=" + h.renewedByWatchdog()));
            reactiveLoops.forEach(loop -> held.addAll(loop.stranded()));
            if (held.isEmpty() || System.nanoTime() - end > 0) {
                return "held=" + held.size() + (held.isEmpty() ? "" : " " + String.join("; ", held));
            }
            Thread.sleep(5);
        }
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
