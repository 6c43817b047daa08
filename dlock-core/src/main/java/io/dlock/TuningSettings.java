package io.dlock;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings that most applications leave at their defaults: how a blocking call waits for Redis's reply
 * ({@link #spinWait()}), how often a lock or a semaphore's permits may pass straight between owners of one client
 * ({@link #localHandoffs()}),
 * and which lock name the connect-time permission check uses ({@link #probeLockName()}). Set with
 * {@link LockClientConfig.Builder#tuning}.
 *
 * <p>Refused values throw {@link InvalidSettingException} whose {@link InvalidSettingException#setting() setting} is
 * {@code tuning.} and the builder method, e.g. {@code tuning.spinWait}.
 */
public final class TuningSettings {
    /** How long a blocking call may busy-wait for Redis's reply before it parks (see {@link Builder#spinWait}). */
    public static final Duration DEFAULT_SPIN_WAIT = Duration.ofNanos(200_000);
    /** How many times in a row a lock may pass between owners of one client (see {@link Builder#localHandoffs}). */
    public static final int DEFAULT_LOCAL_HANDOFFS = 8;
    /** The lock name whose channels are checked at connect (see {@link Builder#probeLockName}). */
    public static final String DEFAULT_PROBE_LOCK_NAME = "dlock-probe";
    /** The longest {@link Builder#spinWait spin wait}. */
    private static final Duration MAX_SPIN_WAIT = Duration.ofMillis(10);

    private static final TuningSettings DEFAULTS = builder().build();

    private final Duration spinWait;
    private final int localHandoffs;
    private final String probeLockName;

    private TuningSettings(Builder b) {
        this.spinWait = b.spinWait;
        this.localHandoffs = b.localHandoffs;
        this.probeLockName = b.probeLockName;
    }

    /** @return the settings of a client that sets none: the {@code DEFAULT_…} constants of this class */
    public static TuningSettings defaults() {
        return DEFAULTS;
    }

    /** @return a builder starting from the {@linkplain #defaults() defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from these settings */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.spinWait = spinWait;
        b.localHandoffs = localHandoffs;
        b.probeLockName = probeLockName;
        return b;
    }

    /** @return the busy-wait budget of a blocking call before it parks; zero = never spin */
    public Duration spinWait() {
        return spinWait;
    }

    /** @return how many times in a row a lock may pass straight between owners of one client; 0 = never */
    public int localHandoffs() {
        return localHandoffs;
    }

    /** @return the lock name whose channels the client checks at connect; see {@link Builder#probeLockName} */
    public String probeLockName() {
        return probeLockName;
    }

    @Override
    public String toString() {
        return "{spinWait=" + spinWait + ", localHandoffs=" + localHandoffs + ", probeLockName=" + probeLockName + "}";
    }

    /** Mutable builder; not thread-safe. Every setter validates its argument at once. */
    public static final class Builder {
        private Duration spinWait = DEFAULT_SPIN_WAIT;
        private int localHandoffs = DEFAULT_LOCAL_HANDOFFS;
        private String probeLockName = DEFAULT_PROBE_LOCK_NAME;

        private Builder() {
        }

        /**
         * How long a blocking call ({@code lock()}, {@code tryLock()}, {@code unlock()}, …) may busy-wait for Redis's
         * reply before it parks its thread; default 200 µs, {@link Duration#ZERO} = never.
         *
         * <p>Parking and waking a thread costs about as much as a loopback round trip, so a lone caller that spins
         * gets its answer in about half the time. Only the one thread of the JVM that is blocked in a dlock call
         * while no other is spins; it stops when a second one blocks, after this budget, or when the reply arrives,
         * and nothing spins on a single-CPU machine. The cost is at most this much CPU time per call; set zero
         * where CPU time is billed more dearly than latency. Async methods never spin, nor does a single attempt
         * without a wait ({@code tryLock()}, {@code tryAcquire()}): that is the polling form, whose calls mostly
         * answer "busy", and a spin there would cost a core for every "no" to a caller who asked not to wait.
         *
         * @throws InvalidSettingException ({@code tuning.spinWait}) if negative or above 10 ms
         */
        public Builder spinWait(Duration spinWait) {
            Objects.requireNonNull(spinWait, "tuning.spinWait");
            if (spinWait.isNegative() || spinWait.compareTo(MAX_SPIN_WAIT) > 0) {
                throw new InvalidSettingException("tuning.spinWait", "tuning.spinWait must be between 0 and 10 ms: "
                        + spinWait);
            }
            this.spinWait = spinWait;
            return this;
        }

        /**
         * How many times in a row a plain lock, or the write lock of a read-write lock, may pass straight from one
         * owner of this client to another that waits for it; default 8, 0 = never, for any kind. With
         * {@link LockClientConfig.Builder#syncReplicas} on, locks never pass this way (a hand-off is not confirmed on
         * replicas). The fair lock's hand-offs (to the first waiter of the Redis queue when it is an owner of this
         * client) and a writer's hand-off to all of this client's waiting readers at once are not counted against
         * the cap: the queue, or the release they include, already lets other clients in. The fenced lock never
         * passes this way (every grant draws a token).
         *
         * <p>The same cap applies to a plain {@link DistributedSemaphore}: a release by a thread of this client gives
         * its permits to this client's acquisitions that wait for them, first come first served, once Redis answered
         * one read of the count (the count stays taken and nothing is published), at most this many releases in a
         * row; the next one goes to Redis and wakes every client's waiters, which get a head start over this
         * client's own as for locks (see {@link DistributedSemaphore}). A {@link LeasedSemaphore}'s release through a
         * {@link Permit} hands its place in the permit table to a waiter of one permit the same way, under the waiter's
         * own fresh id and lease, in the release's one call.
         *
         * <p>Owners of one client (threads of one JVM) that want a lock another of them holds wait inside the
         * client, without asking Redis (whose answer could only be "busy"). When the holder unlocks and one of them
         * waits, one script call moves the lock to it: the lock is never free in between and nothing is published.
         * That halves the round trips of a contended hand-over and removes the failed attempts. Other clients,
         * Redisson's included, are woken only when the lock is really released, so after this many hand-offs in a
         * row the lock is released the usual way and everyone competes again: no client keeps a lock to itself
         * for longer than that many critical sections. Waiters inside a client are served in arrival order.
         *
         * @throws InvalidSettingException ({@code tuning.localHandoffs}) if negative
         */
        public Builder localHandoffs(int maxInARow) {
            this.localHandoffs = SettingChecks.notNegative(maxInARow, "tuning.localHandoffs");
            return this;
        }

        /**
         * A lock name of the kind this client uses, with which the client checks at connect that its Redis user may
         * publish and subscribe on the channels of every lock kind ({@code redisson_lock__channel:{NAME}}, a
         * fair-lock waiter's {@code redisson_lock__channel:{NAME}:…}, {@code redisson_rwlock:{NAME}}); default
         * {@value TuningSettings#DEFAULT_PROBE_LOCK_NAME}. The check publishes an empty message on each, which no lock
         * of either library acts on, and subscribes to and unsubscribes from each.
         *
         * <p>Where an ACL rule restricts lock names to a prefix (README, "Redis ACL"), set a name with that prefix,
         * e.g. {@code "lock:dlock-probe"}: otherwise connecting fails. A user that may not use these channels gets a
         * {@link LockException} from {@link LockClient#create} naming the channel, instead of locks whose release
         * fails.
         *
         * @throws InvalidSettingException ({@code tuning.probeLockName}) if blank
         */
        public Builder probeLockName(String lockName) {
            this.probeLockName = SettingChecks.notBlank(lockName, "tuning.probeLockName");
            return this;
        }

        /** @return the settings (each was checked when set) */
        public TuningSettings build() {
            return new TuningSettings(this);
        }
    }
}
