package io.dlock;

import java.time.Duration;
import java.util.Objects;

/**
 * The timing of a {@link LeaderElection}: immutable, validated when built. The defaults are those of Kubernetes'
 * client-go leader election: a lease of 15 s, a renew deadline of 10 s, a retry period of 2 s.
 *
 * <p>The rule the builder checks: the renew deadline stretched by a 1 % clock-rate error stays below the lease
 * ({@code renewDeadline × 1.01 < lease}), so a leader steps down on its own clock before Redis can expire its lock;
 * and the retry period is below the renew deadline, so a leader tries at least once before it steps down. Refused
 * values throw {@link InvalidSettingException} naming the setting ({@code election.lease}, …).
 */
public final class LeaderElectionSettings {
    /** How long the lock lives in Redis after the last confirmed renewal's send. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(15);
    /** How long a leader goes without a confirmed renewal before it steps down. */
    public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
    /** How often a leader renews, and a candidate that lost tries again at the latest. */
    public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);
    /** How long a revoked leader's task may take to stop before the lock is released anyway. */
    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(5);

    private static final LeaderElectionSettings DEFAULTS = builder().build();

    private final Duration lease;
    private final Duration renewDeadline;
    private final Duration retryPeriod;
    private final Duration stopTimeout;

    private LeaderElectionSettings(Builder b) {
        this.lease = b.lease;
        this.renewDeadline = b.renewDeadline;
        this.retryPeriod = b.retryPeriod;
        this.stopTimeout = b.stopTimeout;
    }

    /** @return the defaults: the {@code DEFAULT_…} constants of this class */
    public static LeaderElectionSettings defaults() {
        return DEFAULTS;
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the lock's lease in Redis, counted from each confirmed renewal's send */
    public Duration lease() {
        return lease;
    }

    /** @return how long a leader goes without a confirmed renewal before it steps down */
    public Duration renewDeadline() {
        return renewDeadline;
    }

    /** @return how often a leader renews; the longest a losing candidate waits before it tries again */
    public Duration retryPeriod() {
        return retryPeriod;
    }

    /** @return how long a revoked leader's task may take to stop before the lock is released anyway */
    public Duration stopTimeout() {
        return stopTimeout;
    }

    @Override
    public String toString() {
        return "{lease=" + lease + ", renewDeadline=" + renewDeadline + ", retryPeriod=" + retryPeriod
                + ", stopTimeout=" + stopTimeout + "}";
    }

    /** Mutable builder; not thread-safe. {@link #build()} checks the settings together. */
    public static final class Builder {
        private Duration lease = DEFAULT_LEASE;
        private Duration renewDeadline = DEFAULT_RENEW_DEADLINE;
        private Duration retryPeriod = DEFAULT_RETRY_PERIOD;
        private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;

        private Builder() {
        }

        /** @param lease the lock's lease: at least 3 ms, at most {@link DistributedLock#MAX_LEASE} */
        public Builder lease(Duration lease) {
            this.lease = positive("lease", lease, Duration.ofMillis(3));
            if (lease.compareTo(DistributedLock.MAX_LEASE) > 0) {
                throw new InvalidSettingException("election.lease", "election.lease " + lease
                        + " is longer than the longest lease, " + DistributedLock.MAX_LEASE);
            }
            return this;
        }

        /** @param renewDeadline how long a leader goes without a confirmed renewal: at least 2 ms */
        public Builder renewDeadline(Duration renewDeadline) {
            this.renewDeadline = positive("renewDeadline", renewDeadline, Duration.ofMillis(2));
            return this;
        }

        /** @param retryPeriod how often a leader renews: at least 1 ms */
        public Builder retryPeriod(Duration retryPeriod) {
            this.retryPeriod = positive("retryPeriod", retryPeriod, Duration.ofMillis(1));
            return this;
        }

        /** @param stopTimeout how long a revoked leader's task may take to stop: zero or more */
        public Builder stopTimeout(Duration stopTimeout) {
            this.stopTimeout = positive("stopTimeout", stopTimeout, Duration.ZERO);
            return this;
        }

        /**
         * @return the settings
         * @throws InvalidSettingException when {@code renewDeadline × 1.01} is not below the lease, or the retry period
         *                                 is not below the renew deadline
         */
        public LeaderElectionSettings build() {
            // a 1 % clock-rate error: 101 × deadline < 100 × lease, in ns (no overflow below MAX_LEASE's 36,500 days)
            if (java.math.BigInteger.valueOf(renewDeadline.toNanos()).multiply(java.math.BigInteger.valueOf(101))
                    .compareTo(java.math.BigInteger.valueOf(lease.toNanos()).multiply(
                            java.math.BigInteger.valueOf(100))) >= 0) {
                throw new InvalidSettingException("election.renewDeadline", "election.renewDeadline " + renewDeadline
                        + " stretched by a 1% clock-rate error must stay below election.lease " + lease
                        + ", so that a leader steps down before Redis can expire its lock");
            }
            if (retryPeriod.compareTo(renewDeadline) >= 0) {
                throw new InvalidSettingException("election.retryPeriod", "election.retryPeriod " + retryPeriod
                        + " must be below election.renewDeadline " + renewDeadline
                        + ", so that a leader renews at least once before it would step down");
            }
            return new LeaderElectionSettings(this);
        }

        private static Duration positive(String setting, Duration value, Duration least) {
            Objects.requireNonNull(value, "election." + setting);
            if (value.compareTo(least) < 0) {
                throw new InvalidSettingException("election." + setting, "election." + setting + " " + value
                        + " is below " + least);
            }
            return value;
        }
    }
}
