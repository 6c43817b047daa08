package io.dlock.internal.lock;

import io.dlock.internal.acquire.AcquireLoop;

import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.TaskScheduler;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

/**
 * The {@link LocalCohort}s of one client, by lock name: one exists while an owner of the client holds or waits
 * behind a local holder of that lock, and is dropped when idle, so the map stays as small as the set of locks in
 * use.
 *
 * <p>Every {@code recheckNanos} a sweep drops cohorts whose holder's lease ran out or was lost with nobody waiting
 * (nothing else would touch them again), and, for each cohort with waiters, checks with one {@code HEXISTS} that the
 * holder's field is still in Redis: a lock freed behind the holder's back sends its waiters to Redis.
 *
 * <p>An unlock message on a lock's channel (or a read-write lock's, for writers) while owners wait behind a local holder means that the lock went through
 * Redis without that holder's release: a force-unlock by another client (dlock, {@code dlock unlock --force},
 * Redisson), or a message from an earlier release that arrived late. {@link #unlockMessage} makes the same check at
 * once, so local waiters learn of a forced release within a few round trips instead of at the next sweep. (Local
 * waiters keep the client subscribed to the channel: {@link AcquireLoop}.)
 */
final class LocalCohorts {
    private final ConcurrentHashMap<String, LocalCohort> byName = new ConcurrentHashMap<>();
    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final long recheckNanos;
    private final int maxHandoffs;
    private final long headStartNanos;
    private final BiFunction<String, String, CompletableFuture<Boolean>> fieldExists;
    private volatile boolean closed;
    private volatile Runnable cancelSweep = () -> { };

    /**
     * @param recheckNanos the longest a waiter trusts a local holder before asking Redis again
     * @param maxHandoffs  the most hand-offs in a row before the lock goes back through Redis (0 = none)
     * @param headStartNanos how long this client's owners hold back after a release that woke other clients
     *                     ({@link LocalCohort#released(long, boolean, long)})
     * @param fieldExists  (key, field) → whether the hash field exists in Redis ({@code HEXISTS})
     */
    LocalCohorts(TaskScheduler scheduler, LongSupplier nanoTime, long recheckNanos, int maxHandoffs,
                 long headStartNanos, BiFunction<String, String, CompletableFuture<Boolean>> fieldExists) {
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
        this.recheckNanos = recheckNanos;
        this.maxHandoffs = maxHandoffs;
        this.headStartNanos = headStartNanos;
        this.fieldExists = fieldExists;
    }

    /** Starts the periodic sweep. */
    void start() {
        scheduleSweep();
    }

    /** Stops the sweep. */
    void close() {
        closed = true;
        cancelSweep.run();
    }

    private void scheduleSweep() {
        if (!closed) {
            cancelSweep = scheduler.schedule(() -> {
                try {
                    sweep();
                } finally {
                    scheduleSweep();
                }
            }, recheckNanos);
        }
    }

    /** Drops idle cohorts; checks in Redis the holders that others wait behind. Never throws. */
    void sweep() {
        byName.forEach((name, cohort) -> {
            if (cohort.retireIfIdle()) {
                byName.remove(name, cohort);
                return;
            }
            verifyHolder(cohort);
        });
    }

    /**
     * An unlock message arrived on {@code channel}: each cohort on it counts it (it may end a head start) and has its
     * holder checked if owners wait behind it.
     */
    void unlockMessage(String channel) {
        List<String> names = channel.startsWith(ReadWriteKeys.CHANNEL_PREFIX + ":")
                ? LockNames.namesOfChannel(ReadWriteKeys.CHANNEL_PREFIX, channel) : LockNames.namesOfLockChannel(channel);
        for (String name : names) {
            LocalCohort cohort = byName.get(name);
            if (cohort != null) {
                cohort.unlockMessageArrived();
                verifyHolder(cohort);
            }
        }
    }

    /** Checks that the holder {@code name}'s waiters wait behind is still in Redis ({@link #verifyHolder}). */
    void verifyHolder(String name) {
        LocalCohort cohort = byName.get(name);
        if (cohort != null) {
            verifyHolder(cohort);
        }
    }

    /**
     * While owners wait behind the cohort's holder, asks Redis whether its field still exists; if not, the waiters go
     * to Redis ({@link LocalCohort#holderGone}). Never throws.
     */
    private void verifyHolder(LocalCohort cohort) {
        Hold hold = cohort.holdToVerify();
        if (hold == null) {
            return;
        }
        CompletableFuture<Boolean> exists;
        try {
            exists = fieldExists.apply(hold.key(), hold.field());
        } catch (RuntimeException e) {
            return;
        }
        exists.whenComplete((present, error) -> {
            if (error == null && Boolean.FALSE.equals(present)) {
                cohort.holderGone(hold);
            }
        });
    }

    /** @return the cohort of {@code name}, or null if none is active */
    LocalCohort find(String name) {
        return byName.get(name);
    }

    /** Records that Redis granted {@code ownerId} the lock {@code name}. */
    void acquired(String name, long ownerId, Hold hold) {
        while (true) {
            LocalCohort cohort = byName.computeIfAbsent(name,
                    n -> new LocalCohort(scheduler, nanoTime, recheckNanos, maxHandoffs, headStartNanos));
            if (cohort.acquired(ownerId, hold)) {
                return;
            }
            byName.remove(name, cohort);
        }
    }

    /**
     * {@link LocalCohort#whenHeldByAnother} on the cohort of {@code name}, created if none.
     *
     * @return cancels it, and drops the cohort if that leaves it idle
     */
    Runnable whenHeldByAnother(String name, long ownerId, Runnable nudge) {
        while (true) {
            LocalCohort cohort = byName.computeIfAbsent(name,
                    n -> new LocalCohort(scheduler, nanoTime, recheckNanos, maxHandoffs, headStartNanos));
            Runnable cancel = cohort.whenHeldByAnother(ownerId, nudge);
            if (cancel != null) {
                return () -> {
                    cancel.run();
                    tidy(name, cohort);
                };
            }
            byName.remove(name, cohort);
        }
    }

    /** {@code ownerId} no longer holds {@code name}: wakes the next local waiter, drops the cohort when idle. */
    void released(String name, long ownerId) {
        released(name, ownerId, false, 0);
    }

    /**
     * {@code ownerId} released {@code name} in Redis: wakes the next local waiter, after other clients' head start
     * when the unlock message reached some ({@code othersWoken}; {@link LocalCohort#released(long, boolean, long)});
     * drops the cohort when idle.
     */
    void released(String name, long ownerId, boolean othersWoken, long headStartEndsAtMessage) {
        LocalCohort cohort = byName.get(name);
        if (cohort != null) {
            cohort.released(ownerId, othersWoken, headStartEndsAtMessage);
            tidy(name, cohort);
        }
    }

    /** This client force-unlocked {@code name}. */
    void cleared(String name) {
        LocalCohort cohort = byName.get(name);
        if (cohort != null) {
            cohort.clear();
            tidy(name, cohort);
        }
    }

    /** Drops {@code cohort} if nobody holds or waits on it any more. */
    void tidy(String name, LocalCohort cohort) {
        if (cohort.retireIfIdle()) {
            byName.remove(name, cohort);
        }
    }

    /** @return how many locks have a cohort (tests: the map must not grow without bound) */
    int size() {
        return byName.size();
    }
}
