package io.dlock.internal.lock;

/**
 * One owner's {@link AcquireLoop.LocalGate} onto the {@link LocalCohort} of its lock name: every call looks the
 * cohort up afresh (it comes and goes with use) and tidies it afterwards.
 */
final class CohortGate implements AcquireLoop.LocalGate {
    private final LocalCohorts cohorts;
    private final String name;
    private final long ownerId;
    private final long leaseMs;

    CohortGate(LocalCohorts cohorts, String name, long ownerId, long leaseMs) {
        this.cohorts = cohorts;
        this.name = name;
        this.ownerId = ownerId;
        this.leaseMs = leaseMs;
    }

    @Override
    public boolean heldLocally() {
        LocalCohort cohort = cohorts.find(name);
        return cohort != null && cohort.heldByAnotherLocalOwner(ownerId);
    }

    @Override
    public LocalWaiter queue(long maxWaitNanos) {
        LocalCohort cohort = cohorts.find(name);
        return cohort == null ? null : cohort.queueBehindLocalHolder(ownerId, leaseMs, maxWaitNanos);
    }

    @Override
    public void leave(LocalWaiter waiter) {
        LocalCohort cohort = cohorts.find(name);
        if (cohort != null) {
            cohort.leave(waiter);
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

    @Override
    public void busyInRedis() {
        LocalCohort cohort = cohorts.find(name);
        if (cohort != null) {
            cohort.busyInRedis();
            cohorts.tidy(name, cohort);
        }
    }
}
