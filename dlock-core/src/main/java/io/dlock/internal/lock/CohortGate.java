package io.dlock.internal.lock;

import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.LocalTurn;

import java.util.function.BooleanSupplier;

/**
 * One owner's {@link LocalGate} onto the {@link LocalCohort} of its lock name: every call looks the
 * cohort up afresh (it comes and goes with use) and tidies it afterwards.
 */
final class CohortGate implements LocalGate {
    private final LocalCohorts cohorts;
    private final String name;
    private final long ownerId;
    private final long leaseMs;
    private final long refreshNanos;
    private final BooleanSupplier placeInRedis;
    private final boolean shared;
    /** Whether a sleep on the channel ends once another local owner holds the lock ({@link #sleepingOnChannel}). */
    private final boolean nudgedByLocalHolder;

    /** The name of the owner's thread when it asked (a hand-off's hold record, {@link HoldRecord}). */
    private final String thread;

    CohortGate(LocalCohorts cohorts, String name, long ownerId, long leaseMs) {
        this(cohorts, name, ownerId, leaseMs, Long.MAX_VALUE, () -> true, false, false, "");
    }

    /**
     * @param refreshNanos the longest the owner waits locally before it asks Redis again, even behind a live local
     *                     holder ({@code Long.MAX_VALUE}: no such limit)
     * @param placeInRedis whether the owner may wait locally now: a fair-lock waiter first needs its place in the
     *                     Redis queue, taken by an attempt
     * @param shared       the owner waits for a shared hold (a reader of a read-write lock)
     * @param nudgedByLocalHolder a sleep on the channel (with a place in Redis) ends once another local owner holds
     *                     the lock: for the fair lock, whose sleeping waiter keeps its queue place
     * @param thread       the name of the thread that asked for the hold
     */
    CohortGate(LocalCohorts cohorts, String name, long ownerId, long leaseMs, long refreshNanos,
               BooleanSupplier placeInRedis, boolean shared, boolean nudgedByLocalHolder, String thread) {
        this.thread = thread;
        this.shared = shared;
        this.nudgedByLocalHolder = nudgedByLocalHolder;
        this.cohorts = cohorts;
        this.name = name;
        this.ownerId = ownerId;
        this.leaseMs = leaseMs;
        this.refreshNanos = refreshNanos;
        this.placeInRedis = placeInRedis;
    }

    @Override
    public boolean heldLocally() {
        LocalCohort cohort = cohorts.find(name);
        return cohort != null && cohort.heldByAnotherLocalOwner(ownerId);
    }

    @Override
    public LocalTurn queue(long maxWaitNanos) {
        LocalCohort cohort = cohorts.find(name);
        return cohort == null || !placeInRedis.getAsBoolean() ? null
                : cohort.queueBehindLocalHolder(ownerId, leaseMs, maxWaitNanos, refreshNanos, shared, thread);
    }

    @Override
    public void leave(LocalTurn waiter) {
        LocalCohort cohort = cohorts.find(name);
        if (cohort != null) {
            cohort.leave((LocalWaiter) waiter);
            cohorts.tidy(name, cohort);
        }
    }

    @Override
    public void passOn() {
        LocalCohort cohort = cohorts.find(name);
        if (cohort != null) {
            cohort.passOn();
            cohorts.tidy(name, cohort);
        }
    }

    @Override
    public void verifyHolder() {
        cohorts.verifyHolder(name);
    }

    /**
     * A fair-lock waiter (one that needs its place in the Redis queue to wait locally) that sleeps on its channel with
     * that place is woken once another owner of this client holds the lock, to wait behind it; other kinds ignore it.
     */
    @Override
    public Runnable sleepingOnChannel(Runnable nudge) {
        if (!nudgedByLocalHolder || !placeInRedis.getAsBoolean()) {
            return () -> { };
        }
        return cohorts.whenHeldByAnother(name, ownerId, nudge);
    }

    @Override
    public void busyInRedis() {
        LocalCohort cohort = cohorts.find(name);
        if (cohort != null) {
            cohort.busyInRedis();
            cohorts.tidy(name, cohort);
        }
    }
}
