package io.dlock.chaos;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.BYE;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.HELLO;
import static io.dlock.chaos.Event.Type.LEASE_LOST;
import static io.dlock.chaos.Event.Type.NOT_VALID;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;
import static io.dlock.chaos.Event.Type.UNLOCK_NOT_HELD;
import static io.dlock.chaos.Event.Type.WRITE_ERROR;
import static io.dlock.chaos.Event.Type.WRITE_OK;
import static io.dlock.chaos.Event.Type.WRITE_REJECTED;
import static io.dlock.chaos.Event.Type.WRITE_START;

/**
 * A worker JVM: loops until its stop file appears, taking the fenced lock, writing to the fencing store while the
 * lease is known valid, and releasing, recording every step in its event log.
 *
 * <p>One iteration:
 * <ol>
 *   <li>Acquire, one of three ways: {@code tryLockAndGetToken(wait, watchdog)} (most), the no-wait
 *       {@code tryLockAndGetToken()}, or {@code tryLockAndGetToken(wait, lease)} with a fixed lease as long as the
 *       watchdog timeout (not renewed).</li>
 *   <li>One to three times: sleep a little (the critical section's work), check {@code leaseValidFor()}, and only if
 *       at least {@value #MIN_VALID_MS} ms remain, write to the store with the token. A rejected write ends the
 *       critical section (the token is stale). One hold in three is <em>careless</em>: it writes without checking
 *       its lease, so that the store's fencing is what stops its late writes.</li>
 *   <li>A final check, then unlock; an unlock that fails (Redis down) is retried until it succeeds or says the hold
 *       is gone.</li>
 * </ol>
 * When a check finds the lease gone, the worker waits (at most {@value #LISTENER_WAIT_MS} ms) until its
 * {@code LeaseLostListener} has told it too, before cleaning up: both ways of learning are then on record.
 *
 * <p>Usage: {@code Worker <id> <redisUri> <storePort> <lockName> <watchdogMs> <commandTimeoutMs> <eventLog>
 * <stopFile> <seed>}. Exits by itself when the JVM that started it is gone.
 */
public final class Worker {
    /** Below this, a holder does not start a write (a store write takes well under a millisecond on loopback). */
    static final long MIN_VALID_MS = 100;
    /** How long a holder that found its lease gone waits for the listener before it cleans up. */
    static final long LISTENER_WAIT_MS = 2500;
    /** The longest a waiting acquisition waits. */
    static final long WAIT_MS = 3000;

    private final String id;
    private final String lockName;
    private final long watchdogMs;
    private final EventLog log;
    private final Path stopFile;
    private final Random random;
    private final StorageClient store;
    private final LockClient client;
    private final FencedLock lock;
    /** The token of the hold in progress (read by the listener thread), or null. */
    private volatile Long currentToken;
    /** Completed by the listener when the hold in progress is reported lost. */
    private volatile CompletableFuture<Void> currentLost = new CompletableFuture<>();

    private Worker(String[] a) {
        this.id = a[0];
        this.lockName = a[3];
        this.watchdogMs = Long.parseLong(a[4]);
        this.log = EventLog.create(Path.of(a[6]), id);
        this.stopFile = Path.of(a[7]);
        this.random = new Random(Long.parseLong(a[8]));
        this.store = new StorageClient(Integer.parseInt(a[2]), 2000);
        this.client = LockClient.create(LockClientConfig.builder()
                .redisUri(a[1])
                .watchdogTimeout(Duration.ofMillis(watchdogMs))
                .commandTimeout(Duration.ofMillis(Long.parseLong(a[5])))
                .build());
        this.lock = client.getFencedLock(lockName);
        client.addLeaseLostListener(event -> {
            if (event.lockName().equals(lockName)) {
                Long token = currentToken;
                log.record(LEASE_LOST, token == null ? Event.NO_TOKEN : token, event.reason().toString());
                currentLost.complete(null);
            }
        });
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 9) {
            System.err.println("usage: Worker <id> <redisUri> <storePort> <lockName> <watchdogMs> <commandTimeoutMs>"
                    + " <eventLog> <stopFile> <seed>");
            System.exit(2);
        }
        dieWithParent();
        Worker worker = new Worker(args);
        worker.run();
        System.exit(0);
    }

    private void run() throws InterruptedException {
        log.record(HELLO, client.getId() + ":" + Thread.currentThread().getId());
        try {
            while (!Files.exists(stopFile)) {
                iteration();
            }
        } finally {
            client.close();
            store.close();
            log.record(BYE, "");
            log.close();
        }
    }

    private void iteration() throws InterruptedException {
        int how = random.nextInt(10);
        String mode = how < 7 ? "wait" : how < 9 ? "try" : "lease";
        log.record(ACQUIRE_START, mode);
        Long token;
        try {
            token = switch (mode) {
                case "wait" -> lock.tryLockAndGetToken(WAIT_MS, DistributedLock.LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
                case "try" -> lock.tryLockAndGetToken();
                default -> lock.tryLockAndGetToken(WAIT_MS, watchdogMs, TimeUnit.MILLISECONDS);
            };
        } catch (RuntimeException e) {
            log.record(ACQUIRE_ERROR, describe(e));
            Thread.sleep(100 + random.nextInt(200));
            return;
        }
        if (token == null) {
            log.record(ACQUIRE_TIMEOUT, mode);
            if (mode.equals("try")) {
                Thread.sleep(20 + random.nextInt(60));
            }
            return;
        }
        currentLost = new CompletableFuture<>();
        currentToken = token;
        boolean careful = random.nextInt(3) != 0;
        log.record(ACQUIRED, token, careful ? mode : mode + " unchecked");
        if (careful) {
            criticalSection(token);
        } else {
            carelessCriticalSection(token);
        }
        release(token);
        currentToken = null;
    }

    private void criticalSection(long token) throws InterruptedException {
        int writes = 1 + random.nextInt(3);
        for (int i = 0; i < writes; i++) {
            Thread.sleep(10 + random.nextInt(70));
            long checkedAt = System.nanoTime();
            long validMs = lock.leaseValidFor().toMillis();
            if (validMs < MIN_VALID_MS) {
                lost(token, checkedAt, validMs);
                return;
            }
            log.record(WRITE_START, token, checks(checkedAt, validMs));
            try {
                StorageClient.Outcome outcome = store.write(id, token);
                if (!outcome.accepted()) {
                    log.record(WRITE_REJECTED, token, Long.toString(outcome.highest()));
                    break;
                }
                log.record(WRITE_OK, token, "");
            } catch (IOException e) {
                log.record(WRITE_ERROR, token, e.toString());
                break;
            }
        }
        long checkedAt = System.nanoTime();
        long validMs = lock.leaseValidFor().toMillis();
        if (validMs <= 0) {
            lost(token, checkedAt, validMs);
            return;
        }
        log.record(EXIT, token, checks(checkedAt, validMs));
    }

    /**
     * A holder that never looks at its lease (as most users of other libraries): only the store's fencing stands
     * between its late writes and the data. Its writes say {@code unchecked}.
     */
    private void carelessCriticalSection(long token) throws InterruptedException {
        int writes = 1 + random.nextInt(3);
        for (int i = 0; i < writes; i++) {
            Thread.sleep(10 + random.nextInt(70));
            log.record(WRITE_START, token, "unchecked");
            try {
                StorageClient.Outcome outcome = store.write(id, token);
                if (!outcome.accepted()) {
                    log.record(WRITE_REJECTED, token, Long.toString(outcome.highest()));
                    break;
                }
                log.record(WRITE_OK, token, "");
            } catch (IOException e) {
                log.record(WRITE_ERROR, token, e.toString());
                break;
            }
        }
        log.record(EXIT, token, "unchecked");
    }

    /** The validity check said the hold is gone: wait (bounded) until the listener says so too. */
    private void lost(long token, long checkedAt, long validMs) throws InterruptedException {
        log.record(NOT_VALID, token, checks(checkedAt, validMs));
        try {
            currentLost.get(LISTENER_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException notTold) {
            // the checker judges whether the listener should have spoken
        }
        log.record(EXIT, token, "lost");
    }

    private static String checks(long checkedAt, long validMs) {
        return "checkedAt=" + checkedAt + " validMs=" + validMs;
    }

    /** Unlocks; retries while Redis fails, until it succeeds or says the hold is gone. */
    private void release(long token) throws InterruptedException {
        while (true) {
            try {
                lock.unlock();
                log.record(UNLOCKED, token, "");
                return;
            } catch (IllegalMonitorStateException gone) {
                log.record(UNLOCK_NOT_HELD, token, "");
                return;
            } catch (RuntimeException e) {
                log.record(UNLOCK_ERROR, token, describe(e));
                Thread.sleep(100 + random.nextInt(100));
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
