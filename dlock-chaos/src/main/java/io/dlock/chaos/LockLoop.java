package io.dlock.chaos;

import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.LEASE_LOST;
import static io.dlock.chaos.Event.Type.NOT_VALID;
import static io.dlock.chaos.Event.Type.PROBE;
import static io.dlock.chaos.Event.Type.SETUP;
import static io.dlock.chaos.Event.Type.SETUP_ERROR;
import static io.dlock.chaos.Event.Type.SETUP_START;
import static io.dlock.chaos.Event.Type.STEP;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;
import static io.dlock.chaos.Event.Type.UNLOCK_NOT_HELD;
import static io.dlock.chaos.Event.Type.WRITE_ERROR;
import static io.dlock.chaos.Event.Type.WRITE_OK;
import static io.dlock.chaos.Event.Type.WRITE_REJECTED;
import static io.dlock.chaos.Event.Type.WRITE_START;

/**
 * One thread of a {@link Worker} JVM, an owner of its own, looping on the lock of one {@link Workload} as a user
 * would, recording every step in its own event log (source {@code w<n>/<kind>/t<i>}, file
 * {@code w<n>-<kind>-t<i>.events}). Its HELLO's detail is its hold field, {@code <client id>:<thread id>}.
 *
 * <p>What a hold takes is its {@link Guard}: a lock (a side of the read-write lock, a multi-lock over some of
 * {@link Workload#MULTI_MEMBERS}) or a permit of a semaphore; for the plain semaphore "the lease" is the permit
 * itself, which lasts until released ({@link Guard#NO_LEASE_MS}). Workloads that are not one hash field per hold
 * are not probed ({@link Workload#probed()}).
 *
 * <p>One iteration:
 * <ol>
 *   <li>Acquire, one of three ways: wait up to {@value Worker#WAIT_MS} ms with a watchdog lease (most), one no-wait
 *       attempt, or wait with a fixed lease as long as the watchdog timeout (not renewed). The read-write loop takes
 *       the read or the write side, half and half. Right after, a validity check ({@code leaseValidFor()}) is
 *       recorded with the acquisition: it is the hold's first claim of being valid. Then a {@link HoldProbe} looks
 *       in Redis whether it holds the hold ({@code PROBE}).</li>
 *   <li>One to three steps: sleep a little (the critical section's work), check {@code leaseValidFor()}, and only if
 *       at least {@value Worker#MIN_VALID_MS} ms remain, do the step: the fenced loop writes its token to the fencing
 *       store (a rejected write ends the critical section), the others record a {@code STEP}; then a probe. One hold
 *       in three is <em>careless</em>: its steps skip the check (not the probe).</li>
 *   <li>A final check, then one {@code unlock()}. A failed unlock ({@code LockException}: timeout, dropped
 *       connection) is recorded and not retried, as a user would do: the client no longer renews that hold, so it
 *       ends with its lease, which the {@link Checker} and the {@link Nemesis} verify.</li>
 * </ol>
 * When a check finds the lease gone, the loop waits (at most {@value Worker#LISTENER_WAIT_MS} ms) until its
 * {@code LeaseLostListener} has told it too, before leaving: both ways of learning are then on record.
 *
 * <p>The event token of a hold is its fencing token for the fenced lock and the loop's own hold number (1, 2, …)
 * for the others: there it only ties a hold's events together.
 */
final class LockLoop implements Runnable {
    private final String source;
    private final Workload kind;
    private final LockClient client;
    private final long watchdogMs;
    private final long stepMaxMs;
    private final EventLog log;
    private final Path stopFile;
    private final Random random;
    /** The fencing store's client, for the fenced loop only. */
    private final StorageClient store;
    /** The loop's own look at Redis; null for workloads it cannot look for ({@link Workload#probed()}). */
    private final HoldProbe probe;
    private long holds;
    /** The owner id of this loop's holds: its thread's id, once it runs. */
    private volatile long ownerId = -1;
    /** Its hold field, {@code <client id>:<owner id>}, once it runs. */
    private String ownerField;
    /** The token of the hold in progress (read by the listener thread), or null. */
    private volatile Long currentToken;
    /** Completed by the listener when the hold in progress is reported lost. */
    private volatile CompletableFuture<Void> currentLost = new CompletableFuture<>();

    LockLoop(WorkerArgs args, Workload kind, int thread, LockClient client) {
        this.source = kind.source(args.id(), thread);
        this.kind = kind;
        this.client = client;
        this.watchdogMs = args.watchdogMs();
        this.stepMaxMs = args.stepMaxMs();
        this.log = EventLog.create(args.outDir().resolve(args.id() + "-" + kind.label() + "-t" + thread
                + ".events"), source);
        this.stopFile = args.stopFile();
        this.random = new Random((args.seed() * 7 + kind.ordinal()) * 31 + thread);
        this.store = kind == Workload.FENCED ? new StorageClient(args.storePort(), 2000) : null;
        this.probe = kind.probed() ? new HoldProbe(args.redisUri(), args.commandTimeoutMs(), kind) : null;
    }

    /** @return its event source, {@code w<n>/<kind>/t<i>} */
    String source() {
        return source;
    }

    /** Called on the client's executor for every lease-lost event: records it if it is about this loop's hold. */
    void leaseLost(LeaseLostEvent event) {
        if (kind.names(event.lockName()) && event.ownerId() == ownerId) {
            Long token = currentToken;
            log.record(LEASE_LOST, token == null ? Event.NO_TOKEN : token, event.reason().toString());
            currentLost.complete(null);
        }
    }

    @Override
    public void run() {
        ownerId = Thread.currentThread().getId();
        ownerField = client.getId() + ":" + ownerId;
        LoopFrame.run(log, ownerField, stopFile, this::iteration, () -> {
            if (store != null) {
                store.close();
            }
            if (probe != null) {
                probe.close();
            }
        });
    }

    private void iteration() throws InterruptedException {
        Guard guard = Guard.next(kind, client, random);
        if (!setUp(guard)) {
            Thread.sleep(100 + random.nextInt(200));
            return;
        }
        int how = random.nextInt(10);
        String mode = (how < 7 ? "wait" : how < 9 ? "try" : "lease") + guard.describe();
        log.record(ACQUIRE_START, mode);
        Long token;
        try {
            token = guard.acquire(mode, watchdogMs) ? (guard.token() != null ? guard.token() : ++holds) : null;
        } catch (RuntimeException e) {
            log.record(ACQUIRE_ERROR, Worker.describe(e));
            Thread.sleep(100 + random.nextInt(200));
            return;
        }
        if (token == null) {
            log.record(ACQUIRE_TIMEOUT, mode);
            if (mode.startsWith("try")) {
                Thread.sleep(20 + random.nextInt(60));
            }
            return;
        }
        long checkedAt = System.nanoTime();
        long validMs = guard.validMs();
        currentLost = new CompletableFuture<>();
        currentToken = token;
        boolean careful = random.nextInt(3) != 0;
        log.record(ACQUIRED, token, mode + (careful ? "" : " unchecked") + " " + checks(checkedAt, validMs));
        probe(token, guard);
        if (careful) {
            criticalSection(guard, token);
        } else {
            carelessCriticalSection(guard, token);
        }
        release(guard, token);
        currentToken = null;
    }

    /**
     * The semaphores' {@code trySetPermits} before each attempt, recorded as a call of its own (SETUP_START, then
     * SETUP or SETUP_ERROR): the conservation check counts the permits it sets.
     *
     * @return false when it failed (the iteration ends)
     */
    private boolean setUp(Guard guard) {
        String what = guard.setUpDescription();
        if (what == null) {
            return true;
        }
        log.record(SETUP_START, what);
        try {
            log.record(SETUP, Boolean.toString(guard.setUp()));
            return true;
        } catch (RuntimeException e) {
            log.record(SETUP_ERROR, Worker.describe(e));
            return false;
        }
    }

    private void criticalSection(Guard guard, long token) throws InterruptedException {
        int steps = 1 + random.nextInt(3);
        for (int i = 0; i < steps; i++) {
            Thread.sleep(stepSleep());
            long checkedAt = System.nanoTime();
            long validMs = guard.validMs();
            if (validMs < Worker.MIN_VALID_MS) {
                lost(token, checkedAt, validMs);
                return;
            }
            boolean goOn = step(token, checks(checkedAt, validMs));
            probe(token, guard);
            if (!goOn) {
                break;
            }
        }
        long checkedAt = System.nanoTime();
        long validMs = guard.validMs();
        if (validMs <= 0) {
            lost(token, checkedAt, validMs);
            return;
        }
        log.record(EXIT, token, checks(checkedAt, validMs));
    }

    /**
     * A holder that never looks at its lease (as most users of other libraries): for the fenced lock only the
     * store's fencing stands between its late writes and the data. Its steps say {@code unchecked}.
     */
    private void carelessCriticalSection(Guard guard, long token) throws InterruptedException {
        int steps = 1 + random.nextInt(3);
        for (int i = 0; i < steps; i++) {
            Thread.sleep(stepSleep());
            boolean goOn = step(token, "unchecked");
            probe(token, guard);
            if (!goOn) {
                break;
            }
        }
        log.record(EXIT, token, "unchecked");
    }

    /** @return whether the critical section may go on (false after the store rejected or failed a write) */
    private boolean step(long token, String checks) {
        if (store == null) {
            log.record(STEP, token, checks);
            return true;
        }
        log.record(WRITE_START, token, checks);
        try {
            StorageClient.Outcome outcome = store.write(source, token);
            if (!outcome.accepted()) {
                log.record(WRITE_REJECTED, token, Long.toString(outcome.highest()));
                return false;
            }
            log.record(WRITE_OK, token, "");
            return true;
        } catch (IOException e) {
            log.record(WRITE_ERROR, token, e.toString());
            return false;
        }
    }

    /** Looks in Redis, past the client, whether it holds this owner's hold now, and records what it found. */
    private void probe(long token, Guard guard) {
        if (probe != null) {
            log.record(PROBE, token, probe.look(ownerField, guard.read(), guard.probedKeys(kind)).detail());
        }
    }

    private long stepSleep() {
        long min = Math.max(1, stepMaxMs / 8);
        return min + random.nextInt((int) Math.max(1, stepMaxMs - min));
    }

    /** The validity check said the hold is gone: wait (bounded) until the listener says so too. */
    private void lost(long token, long checkedAt, long validMs) throws InterruptedException {
        log.record(NOT_VALID, token, checks(checkedAt, validMs));
        try {
            currentLost.get(Worker.LISTENER_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException notTold) {
            // the checker judges whether the listener should have spoken
        }
        log.record(EXIT, token, "lost");
    }

    static String checks(long checkedAt, long validMs) {
        return "checkedAt=" + checkedAt + " validMs=" + validMs;
    }

    /**
     * Unlocks once, as a user would: a failure is recorded and not retried (the client stops renewing a hold whose
     * release failed, so it ends with its current lease).
     */
    private void release(Guard guard, long token) {
        try {
            log.record(guard.release() ? UNLOCKED : UNLOCK_NOT_HELD, token, "");
        } catch (RuntimeException e) {
            log.record(UNLOCK_ERROR, token, Worker.describe(e));
        }
    }
}
