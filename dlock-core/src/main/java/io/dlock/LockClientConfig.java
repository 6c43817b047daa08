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

    /** @return how many replicas must acknowledge a lock write; 0 = off */
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

        /** Where Redis is; default {@code redis://localhost:6379}. */
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

        /** After a lock write, {@code WAIT} for {@code replicas} replicas for at most {@code timeout}; 0 = off. */
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
