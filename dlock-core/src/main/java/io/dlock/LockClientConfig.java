package io.dlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/** Immutable settings of a {@link LockClient}; build with {@link #builder()}. */
public final class LockClientConfig {

    /** Lease of a lock taken without one; renewed every third of it while held. */
    public static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);
    /** How long a fair-lock waiter's place is kept for it at a time (Redisson's default). */
    public static final Duration DEFAULT_FAIR_LOCK_WAIT_TIMEOUT = Duration.ofMinutes(5);
    /** How long one Redis command may take before it fails with {@link LockException}. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);

    private final String redisUri;
    private final Duration watchdogTimeout;
    private final Duration fairLockWaitTimeout;
    private final Duration commandTimeout;
    private final int syncReplicas;
    private final Duration syncReplicasTimeout;
    private final Object meterRegistry;
    private final Executor executor;

    private LockClientConfig(Builder b) {
        this.redisUri = b.redisUri;
        this.watchdogTimeout = b.watchdogTimeout;
        this.fairLockWaitTimeout = b.fairLockWaitTimeout;
        this.commandTimeout = b.commandTimeout;
        this.syncReplicas = b.syncReplicas;
        this.syncReplicasTimeout = b.syncReplicasTimeout;
        this.meterRegistry = b.meterRegistry;
        this.executor = b.executor;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from these settings */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.redisUri = redisUri;
        b.watchdogTimeout = watchdogTimeout;
        b.fairLockWaitTimeout = fairLockWaitTimeout;
        b.commandTimeout = commandTimeout;
        b.syncReplicas = syncReplicas;
        b.syncReplicasTimeout = syncReplicasTimeout;
        b.meterRegistry = meterRegistry;
        b.executor = executor;
        return b;
    }

    public String redisUri() {
        return redisUri;
    }

    public Duration watchdogTimeout() {
        return watchdogTimeout;
    }

    public Duration fairLockWaitTimeout() {
        return fairLockWaitTimeout;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * @return how many replicas must confirm an acquisition ({@code WAIT}) before it counts; 0 = off. See
     *         {@link Builder#syncReplicas(int, Duration)}
     */
    public int syncReplicas() {
        return syncReplicas;
    }

    public Duration syncReplicasTimeout() {
        return syncReplicasTimeout;
    }

    /** @return the Micrometer {@code MeterRegistry}, if one was given */
    public Optional<Object> meterRegistry() {
        return Optional.ofNullable(meterRegistry);
    }

    /** @return the executor for async completions and listeners, if one was given (else the client owns one) */
    public Optional<Executor> executor() {
        return Optional.ofNullable(executor);
    }

    @Override
    public String toString() {
        return "LockClientConfig{redisUri=" + redactedUri() + ", watchdogTimeout=" + watchdogTimeout
                + ", fairLockWaitTimeout=" + fairLockWaitTimeout + ", commandTimeout=" + commandTimeout
                + ", syncReplicas=" + syncReplicas + "/" + syncReplicasTimeout + "}";
    }

    private String redactedUri() {
        return redisUri == null ? null : redisUri.replaceAll("//[^@/]*@", "//***@");
    }

    /** Mutable builder; not thread-safe. Every setter validates its argument at once. */
    public static final class Builder {
        private String redisUri = "redis://localhost:6379";
        private Duration watchdogTimeout = DEFAULT_WATCHDOG_TIMEOUT;
        private Duration fairLockWaitTimeout = DEFAULT_FAIR_LOCK_WAIT_TIMEOUT;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private int syncReplicas;
        private Duration syncReplicasTimeout = Duration.ofSeconds(1);
        private Object meterRegistry;
        private Executor executor;

        private Builder() {
        }

        /**
         * Where Redis is; default {@code redis://localhost:6379}. Standalone, Sentinel and Cluster forms: see
         * {@link LockClient#connect(String)}.
         */
        public Builder redisUri(String redisUri) {
            Objects.requireNonNull(redisUri, "redisUri");
            if (redisUri.isBlank()) {
                throw new IllegalArgumentException("redisUri is blank");
            }
            this.redisUri = redisUri.strip();
            return this;
        }

        /** Lease of locks taken without one (at least 30 ms); renewal runs every third of it. */
        public Builder watchdogTimeout(Duration watchdogTimeout) {
            this.watchdogTimeout = atLeast(watchdogTimeout, Duration.ofMillis(30), "watchdogTimeout");
            return this;
        }

        /** How long a fair-lock waiter's place is kept at a time (at least 1 ms). */
        public Builder fairLockWaitTimeout(Duration fairLockWaitTimeout) {
            this.fairLockWaitTimeout = atLeast(fairLockWaitTimeout, Duration.ofMillis(1), "fairLockWaitTimeout");
            return this;
        }

        /** How long one Redis command may take (at least 1 ms). */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = atLeast(commandTimeout, Duration.ofMillis(1), "commandTimeout");
            return this;
        }

        /**
         * After each first acquisition of a hold (not after a re-entry), confirm with {@code WAIT replicas timeout}
         * on the master that took it that {@code replicas} replicas have the write; 0 = off (the default).
         *
         * <p>When fewer confirm within {@code timeout} (or {@code WAIT} fails), the hold is given back at once and
         * the acquisition counts as failed because Redis is unavailable (see {@link DistributedLock}): acquisitions
         * without a wait limit try again after a pause, the others fail with {@link LockException} (naming how many
         * replicas confirmed). {@code tryLock} never answers {@code false} for this.
         *
         * <p><b>What it guarantees:</b> an acquisition the caller is told about was on {@code replicas} replicas
         * when it returned, so a failover that promotes one of them keeps it, and an old master cut off from its
         * replicas (the usual split brain of a failover) cannot grant it. <b>What it does not:</b> Redis replication
         * stays asynchronous; {@code WAIT} is no consensus. A failover may still promote a replica that had not
         * confirmed (Sentinel and Cluster pick the most up-to-date reachable one, not necessarily a confirming one),
         * and a replica restarted without persistence forgets what it confirmed. Releases and renewals are not
         * confirmed: a release lost in a failover leaves the lock held until its lease runs out (its holder has
         * stopped renewing it), and a renewal lost there shortens the lease it had just extended. Holders learn of
         * lost holds through {@link LeaseLostListener} at the next renewal; fencing tokens ({@link FencedLock}) are
         * what protects a resource from a holder that lost its lock.
         *
         * <p><b>Cost:</b> one more round trip per first acquisition. {@code WAIT} blocks the connection it runs on
         * until enough replicas confirm: while replicas lag or are missing, each acquisition holds up this client's
         * other commands to that master for up to {@code timeout}; keep it well below the command timeout.
         *
         * @param replicas how many replicas must confirm (≥ 0); Redisson's equivalent confirms on every replica
         *                 the master has
         * @param timeout  how long {@code WAIT} may take (at least 1 ms); default 1 s
         */
        public Builder syncReplicas(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("replicas is negative: " + replicas);
            }
            this.syncReplicas = replicas;
            this.syncReplicasTimeout = atLeast(timeout, Duration.ofMillis(1), "timeout");
            return this;
        }

        /** A Micrometer {@code MeterRegistry} (typed {@code Object} so Micrometer stays optional). */
        public Builder meterRegistry(Object meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /**
         * The executor that completes the futures of async methods and runs {@link LeaseLostListener}s; default: a
         * cached pool of daemon threads owned (and shut down) by the client. A given executor is not shut down.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        public LockClientConfig build() {
            return new LockClientConfig(this);
        }

        private static Duration atLeast(Duration value, Duration min, String parameter) {
            Objects.requireNonNull(value, parameter);
            if (value.compareTo(min) < 0) {
                throw new IllegalArgumentException(parameter + " must be at least " + min.toMillis() + " ms: " + value);
            }
            return value;
        }
    }
}
