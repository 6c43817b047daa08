package io.dlock;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Objects;

/**
 * The timing of a {@link LeaderElection}: immutable, validated when built. The defaults are those of Kubernetes'
 * client-go leader election: a lease of 15 s, a renew deadline of 10 s, a retry period of 2 s.
 *
 * <p>The rule the builder checks: the renew deadline stretched by a 1 % clock-rate error stays below the lease
 * ({@code renewDeadline × 1.01 < lease}), so a leader steps down on its own clock before Redis can expire its lock;
 * and the retry period is below the renew deadline, so a leader tries at least once before it steps down. Refused
 * values throw {@link InvalidSettingException} naming the setting ({@code election.lease}, …), from the builder's
 * setters and from the constructor alike.
 *
 * @param lease         the lock's lease in Redis, counted from each confirmed renewal's send: at least 3 ms, at most
 *                      {@link DistributedLock#MAX_LEASE}
 * @param renewDeadline how long a leader goes without a confirmed renewal before it steps down: at least 2 ms
 * @param retryPeriod   how often a leader renews; the longest a losing candidate waits before it tries again: at
 *                      least 1 ms
 * @param stopTimeout   how long a revoked leader's task may take to stop before the lock is released anyway: zero or
 *                      more
 */
public record LeaderElectionSettings(Duration lease, Duration renewDeadline, Duration retryPeriod,
                                     Duration stopTimeout) {
    /** How long the lock lives in Redis after the last confirmed renewal's send. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(15);
    /** How long a leader goes without a confirmed renewal before it steps down. */
    public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
    /** How often a leader renews, and a candidate that lost tries again at the latest. */
    public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);
    /** How long a revoked leader's task may take to stop before the lock is released anyway. */
    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(5);

    private static final LeaderElectionSettings DEFAULTS = builder().build();

    /**
     * Checks each setting and the rule between them (class comment).
     *
     * @throws NullPointerException    when a setting is null
     * @throws InvalidSettingException when a setting is out of its range, {@code renewDeadline × 1.01} is not below
     *                                 the lease, or the retry period is not below the renew deadline
     */
    public LeaderElectionSettings {
        checkLease(lease);
        atLeast("renewDeadline", renewDeadline, Duration.ofMillis(2));
        atLeast("retryPeriod", retryPeriod, Duration.ofMillis(1));
        atLeast("stopTimeout", stopTimeout, Duration.ZERO);
        // a 1 % clock-rate error: 101 × deadline < 100 × lease, in ns (no overflow below MAX_LEASE's 36,500 days)
        if (BigInteger.valueOf(renewDeadline.toNanos()).multiply(BigInteger.valueOf(101))
                .compareTo(BigInteger.valueOf(lease.toNanos()).multiply(BigInteger.valueOf(100))) >= 0) {
            throw new InvalidSettingException("election.renewDeadline", "election.renewDeadline " + renewDeadline
                    + " stretched by a 1% clock-rate error must stay below election.lease " + lease
                    + ", so that a leader steps down before Redis can expire its lock");
        }
        if (retryPeriod.compareTo(renewDeadline) >= 0) {
            throw new InvalidSettingException("election.retryPeriod", "election.retryPeriod " + retryPeriod
                    + " must be below election.renewDeadline " + renewDeadline
                    + ", so that a leader renews at least once before it would step down");
        }
    }

    /** @return the defaults: the {@code DEFAULT_…} constants of this class */
    public static LeaderElectionSettings defaults() {
        return DEFAULTS;
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    private static Duration checkLease(Duration lease) {
        atLeast("lease", lease, Duration.ofMillis(3));
        if (lease.compareTo(DistributedLock.MAX_LEASE) > 0) {
            throw new InvalidSettingException("election.lease", "election.lease " + lease
                    + " is longer than the longest lease, " + DistributedLock.MAX_LEASE);
        }
        return lease;
    }

    private static Duration atLeast(String setting, Duration value, Duration least) {
        Objects.requireNonNull(value, "election." + setting);
        if (value.compareTo(least) < 0) {
            throw new InvalidSettingException("election." + setting, "election." + setting + " " + value
                    + " is below " + least);
        }
        return value;
    }

    /** Mutable builder; not thread-safe. Every setter checks its argument at once; {@link #build()} the rule. */
    public static final class Builder {
        private Duration lease = DEFAULT_LEASE;
        private Duration renewDeadline = DEFAULT_RENEW_DEADLINE;
        private Duration retryPeriod = DEFAULT_RETRY_PERIOD;
        private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;

        private Builder() {
        }

        /** @param lease the lock's lease: at least 3 ms, at most {@link DistributedLock#MAX_LEASE} */
        public Builder lease(Duration lease) {
            this.lease = checkLease(lease);
            return this;
        }

        /** @param renewDeadline how long a leader goes without a confirmed renewal: at least 2 ms */
        public Builder renewDeadline(Duration renewDeadline) {
            this.renewDeadline = atLeast("renewDeadline", renewDeadline, Duration.ofMillis(2));
            return this;
        }

        /** @param retryPeriod how often a leader renews: at least 1 ms */
        public Builder retryPeriod(Duration retryPeriod) {
            this.retryPeriod = atLeast("retryPeriod", retryPeriod, Duration.ofMillis(1));
            return this;
        }

        /** @param stopTimeout how long a revoked leader's task may take to stop: zero or more */
        public Builder stopTimeout(Duration stopTimeout) {
            this.stopTimeout = atLeast("stopTimeout", stopTimeout, Duration.ZERO);
            return this;
        }

        /**
         * @return the settings
         * @throws InvalidSettingException when {@code renewDeadline × 1.01} is not below the lease, or the retry period
         *                                 is not below the renew deadline
         */
        public LeaderElectionSettings build() {
            return new LeaderElectionSettings(lease, renewDeadline, retryPeriod, stopTimeout);
        }
    }
}
