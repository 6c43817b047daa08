package io.dlock.chaos;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.dlock.chaos.Event.Type.BYE;
import static io.dlock.chaos.Event.Type.HELLO;

/**
 * A worker JVM: one {@link LockClient} and one {@link LockLoop} thread per {@link LockKind}, each looping on its
 * kind's lock until the stop file appears. The JVM's own event log ({@code w<n>.events}) holds its HELLO (detail:
 * the client id, the prefix of every hold field it writes) and its BYE; each loop has its own log.
 *
 * <p>Usage: {@code Worker <id> <redisUri> <storePort> <watchdogMs> <commandTimeoutMs> <outDir> <stopFile> <seed>
 * <stepMaxMs>}. Exits by itself when the JVM that started it is gone.
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
        if (a.length != 9) {
            System.err.println("usage: Worker <id> <redisUri> <storePort> <watchdogMs> <commandTimeoutMs> <outDir>"
                    + " <stopFile> <seed> <stepMaxMs>");
            System.exit(2);
        }
        dieWithParent();
        String id = a[0];
        long watchdogMs = Long.parseLong(a[3]);
        Path outDir = Path.of(a[5]);
        EventLog log = EventLog.create(outDir.resolve(id + ".events"), id);
        LockClient client = connect(LockClientConfig.builder()
                .redisUri(a[1])
                .watchdogTimeout(Duration.ofMillis(watchdogMs))
                .commandTimeout(Duration.ofMillis(Long.parseLong(a[4])))
                .fairLockWaitTimeout(Duration.ofMillis(FAIR_WAIT_TIMEOUT_MS))
                .build());
        List<LockLoop> loops = new ArrayList<>();
        for (LockKind kind : LockKind.values()) {
            loops.add(new LockLoop(id, kind, client, watchdogMs, Long.parseLong(a[8]), outDir, Path.of(a[6]),
                    Long.parseLong(a[7]), Integer.parseInt(a[2])));
        }
        client.addLeaseLostListener(event -> loops.forEach(loop -> loop.leaseLost(event)));
        log.record(HELLO, client.getId());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < loops.size(); i++) {
            Thread t = new Thread(loops.get(i), id + "-" + LockKind.values()[i].label());
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        client.close();
        log.record(BYE, "");
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
