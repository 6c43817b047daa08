package io.dlock;


import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Immutable settings of a {@link LockClient}; build with {@link #builder()}.
 *
 * <p>The essentials are set on the {@link Builder} itself: where Redis is (a {@link Builder#redisUri Redis URI} or a
 * structured {@link Builder#connection RedisConnection}), the lease and timeouts, replica confirmation, the executor.
 * Two groups have their own immutable types: {@link TlsSettings} ({@link Builder#tls}) and {@link TuningSettings}
 * ({@link Builder#tuning}). The getters give what a client built from this config runs with, defaults included.
 *
 * <p>A refused value throws {@link InvalidSettingException} naming the setting by its path: a builder method
 * ({@code commandTimeout}), or a group and its builder method ({@code tls.trustStore}, {@code tuning.spinWait},
 * {@code connection.port}). {@link #toString()} never shows a password.
 */
public final class LockClientConfig {

    /** Where a client connects when given neither a {@link Builder#redisUri URI} nor a {@link Builder#connection}. */
    public static final String DEFAULT_REDIS_URI = "redis://localhost:6379";
    /** Lease of a lock taken without one; renewed every third of it while held. */
    public static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);
    /** How long a fair-lock waiter's place is kept for it at a time (Redisson's default). */
    public static final Duration DEFAULT_FAIR_LOCK_WAIT_TIMEOUT = Duration.ofMinutes(5);
    /**
     * How long one Redis command may take before it fails with {@link LockException}, when the watchdog timeout is
     * at least 12 s (the default's is 30 s); with a shorter watchdog the default is a quarter of it (see
     * {@link Builder#commandTimeout}).
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);

    /** The URI set, or null when {@link #connection} is set or neither was (then the client uses the default URI). */
    private final String explicitRedisUri;
    /** The structured connection set, or null. Invariant: it and {@link #explicitRedisUri} are never both set. */
    private final RedisConnection connection;
    private final Duration watchdogTimeout;
    private final Duration fairLockWaitTimeout;
    private final Duration commandTimeout;
    /** The command timeout the user set, or null when {@link #commandTimeout} follows the watchdog. */
    private final Duration explicitCommandTimeout;
    private final int syncReplicas;
    private final Duration syncReplicasTimeout;
    private final Executor executor;
    private final TlsSettings tls;
    private final TuningSettings tuning;
    private final String applicationName;
    private final boolean holdDetails;

    private LockClientConfig(Builder b) {
        this.explicitRedisUri = b.redisUri;
        this.connection = b.connection;
        this.watchdogTimeout = b.watchdogTimeout;
        this.fairLockWaitTimeout = b.fairLockWaitTimeout;
        this.explicitCommandTimeout = b.commandTimeout;
        this.commandTimeout = b.commandTimeout != null ? b.commandTimeout : defaultCommandTimeout(b.watchdogTimeout);
        this.syncReplicas = b.syncReplicas;
        this.syncReplicasTimeout = b.syncReplicasTimeout;
        this.executor = b.executor;
        this.tls = b.tls;
        this.tuning = b.tuning;
        this.applicationName = b.applicationName;
        this.holdDetails = b.holdDetails;
    }

    /** @return a builder of the default settings (Redis at {@value #DEFAULT_REDIS_URI}) */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @return a builder starting from these settings. Where Redis is stays given the way it was: a copy of a config
     *         built with a URI refuses a {@link Builder#connection} at {@link Builder#build()}, and the other way round
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.redisUri = explicitRedisUri;
        b.connection = connection;
        b.watchdogTimeout = watchdogTimeout;
        b.fairLockWaitTimeout = fairLockWaitTimeout;
        b.commandTimeout = explicitCommandTimeout;
        b.syncReplicas = syncReplicas;
        b.syncReplicasTimeout = syncReplicasTimeout;
        b.executor = executor;
        b.tls = tls;
        b.tuning = tuning;
        b.applicationName = applicationName;
        b.holdDetails = holdDetails;
        return b;
    }

    /**
     * @return the Redis URI the client connects to, credentials included ({@value #DEFAULT_REDIS_URI} when neither
     *         a URI nor a connection was set); empty exactly when {@link #connection()} is present
     */
    public Optional<String> redisUri() {
        return connection != null ? Optional.empty()
                : Optional.of(explicitRedisUri != null ? explicitRedisUri : DEFAULT_REDIS_URI);
    }

    /** @return the structured connection the client connects with; empty exactly when {@link #redisUri()} is present */
    public Optional<RedisConnection> connection() {
        return Optional.ofNullable(connection);
    }

    /**
     * @return where the client connects, for messages and logs: the Redis URI with its user info replaced by
     *         {@code ***}, or the connection's {@link RedisConnection#toString() description}; never a password
     */
    public String redisDescription() {
        return connection != null ? connection.toString() : Redaction.uri(redisUri().orElseThrow());
    }

    public Duration watchdogTimeout() {
        return watchdogTimeout;
    }

    public Duration fairLockWaitTimeout() {
        return fairLockWaitTimeout;
    }

    /**
     * @return how long one Redis command may take: the value set with {@link Builder#commandTimeout}, else
     *         {@link #DEFAULT_COMMAND_TIMEOUT} or a quarter of the watchdog timeout, whichever is shorter
     */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** The command timeout used when none is set: 3 s, or a quarter of a watchdog timeout shorter than 12 s. */
    static Duration defaultCommandTimeout(Duration watchdogTimeout) {
        Duration quarter = watchdogTimeout.dividedBy(4);
        return quarter.compareTo(DEFAULT_COMMAND_TIMEOUT) < 0 ? quarter : DEFAULT_COMMAND_TIMEOUT;
    }

    /**
     * @return how many replicas must confirm an acquisition ({@code WAIT}) before it counts; 0 = off. See
     *         {@link Builder#syncReplicas(int, Duration)}
     */
    public int syncReplicas() {
        return syncReplicas;
    }

    /** @return how long {@code WAIT} may take when {@link #syncReplicas()} is on (default 1 s) */
    public Duration syncReplicasTimeout() {
        return syncReplicasTimeout;
    }

    /** @return the executor for async completions and listeners, if one was given (else the client owns one) */
    public Optional<Executor> executor() {
        return Optional.ofNullable(executor);
    }

    /** @return the TLS settings ({@link TlsSettings#defaults()} unless set) */
    public TlsSettings tls() {
        return tls;
    }

    /** @return the tuning settings ({@link TuningSettings#defaults()} unless set) */
    public TuningSettings tuning() {
        return tuning;
    }

    /** @return the application name the client reports in its {@link ClientIdentity}; empty unless set */
    public String applicationName() {
        return applicationName;
    }

    /** @return whether the client writes each plain lock's hold record ({@link Builder#holdDetails}); false unless set */
    public boolean holdDetails() {
        return holdDetails;
    }

    /** @return every setting; the Redis URI without its user info, no password at all */
    @Override
    public String toString() {
        return "LockClientConfig{" + (connection != null ? "connection=" : "redisUri=") + redisDescription()
                + ", watchdogTimeout=" + watchdogTimeout + ", fairLockWaitTimeout=" + fairLockWaitTimeout
                + ", commandTimeout=" + commandTimeout + ", syncReplicas=" + syncReplicas + "/" + syncReplicasTimeout
                + ", tuning=" + tuning + ", tls=" + tls
                + (applicationName.isEmpty() ? "" : ", applicationName=" + applicationName)
                + (holdDetails ? ", holdDetails=true" : "") + "}";
    }

    /** Mutable builder; not thread-safe. Every setter validates its argument at once, {@link #build()} the mix. */
    public static final class Builder {
        private String redisUri; // null: not set
        private RedisConnection connection; // null: not set
        private Duration watchdogTimeout = DEFAULT_WATCHDOG_TIMEOUT;
        private Duration fairLockWaitTimeout = DEFAULT_FAIR_LOCK_WAIT_TIMEOUT;
        private Duration commandTimeout; // null: follows the watchdog timeout
        private int syncReplicas;
        private Duration syncReplicasTimeout = Duration.ofSeconds(1);
        private Executor executor;
        private TlsSettings tls = TlsSettings.defaults();
        private TuningSettings tuning = TuningSettings.defaults();
        private String applicationName = "";
        private boolean holdDetails;

        private Builder() {
        }

        /**
         * Where Redis is, as a URI; default {@value LockClientConfig#DEFAULT_REDIS_URI}. Standalone, Sentinel and
         * Cluster forms: see {@link LockClient#connect(String)}. Checked at connect. Give this or a
         * {@link #connection}, not both.
         *
         * @throws InvalidSettingException ({@code redisUri}) when blank
         */
        public Builder redisUri(String redisUri) {
            this.redisUri = SettingChecks.notBlank(redisUri, "redisUri").strip();
            return this;
        }

        /**
         * Where Redis is, as values (host and port, Sentinels, cluster seeds, credentials, database, TLS); the client
         * connects and behaves exactly as with the {@link #redisUri URI} of the same deployment. Give this or a
         * URI, not both.
         */
        public Builder connection(RedisConnection connection) {
            this.connection = Objects.requireNonNull(connection, "connection");
            return this;
        }

        /** Lease of locks taken without one (at least 30 ms); renewal runs every third of it. */
        public Builder watchdogTimeout(Duration watchdogTimeout) {
            this.watchdogTimeout = SettingChecks.atLeast(watchdogTimeout, Duration.ofMillis(30), "watchdogTimeout");
            return this;
        }

        /** How long a fair-lock waiter's place is kept at a time (at least 1 ms). */
        public Builder fairLockWaitTimeout(Duration fairLockWaitTimeout) {
            this.fairLockWaitTimeout = SettingChecks.atLeast(fairLockWaitTimeout, Duration.ofMillis(1),
                    "fairLockWaitTimeout");
            return this;
        }

        /**
         * How long one Redis command may take (at least 1 ms, and less than a third of the watchdog timeout, checked
         * at {@link #build()}: a renewal that may still be waiting for its reply when the next one is due could let
         * a hold run out unnoticed). Unset, it is {@link LockClientConfig#DEFAULT_COMMAND_TIMEOUT} or a quarter of
         * the watchdog timeout, whichever is shorter.
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = SettingChecks.atLeast(commandTimeout, Duration.ofMillis(1), "commandTimeout");
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
                throw new InvalidSettingException("syncReplicas", "syncReplicas: replicas is negative: " + replicas);
            }
            this.syncReplicas = replicas;
            this.syncReplicasTimeout = SettingChecks.atLeast(timeout, Duration.ofMillis(1), "syncReplicas");
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

        /**
         * The TLS settings: trusted certificates, client certificate, peer verification; default
         * {@link TlsSettings#defaults()}. They need a TLS connection ({@code rediss…://} or
         * {@link RedisConnection.Builder#tls(boolean)}): with a plain-text one, connecting is refused.
         */
        public Builder tls(TlsSettings tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /** The settings most applications leave alone; default {@link TuningSettings#defaults()}. */
        public Builder tuning(TuningSettings tuning) {
            this.tuning = Objects.requireNonNull(tuning, "tuning");
            return this;
        }

        /**
         * The application this client belongs to, as people reading who holds a lock or leads an election should see
         * it ({@link ClientIdentity#application()}); default none. Written to Redis in the clear: not a secret.
         *
         * @throws InvalidSettingException ({@code applicationName}) when blank or longer than 128 characters
         */
        public Builder applicationName(String applicationName) {
            String name = SettingChecks.notBlank(applicationName, "applicationName").strip();
            if (name.length() > 128) {
                throw new InvalidSettingException("applicationName", "applicationName must be at most 128 characters: "
                        + name.length());
            }
            this.applicationName = name;
            return this;
        }

        /**
         * Per-hold details for the plain lock ({@link LockClient#getLock}); default off. When on, the script that
         * gives this client a hold also writes the lock's hold record {@code dlock_hold:{NAME}} (a dlock-only hash in
         * the lock's slot): since when the hold exists (the Redis server's clock) and the name of the thread that
         * asked for it, which {@link LockClient#inspect} reports as {@link LockInfo.Holder#details()} and
         * {@code dlock status} shows. The record lives and dies with the hold: the hold's TTL at every acquisition,
         * re-entry and renewal, deleted by the last release. Without it, {@link LockInfo.Holder#identity()} (the
         * client's card: host, pid, application) is all {@code inspect} says of a holder.
         * <p>
         * It costs no extra round trip, but each first acquisition writes one more key and each watchdog renewal
         * extends it: measured in the bench module (S1, S3, "dlock+details"). It is off by default until those
         * figures show it costs nothing a user would notice. Fair, fenced and read-write locks, multi-locks and
         * semaphores write no hold record (a leader election has its own leader record); a Redisson holder has none.
         * The thread name is written to Redis in the clear: do not put secrets in thread names.
         */
        public Builder holdDetails(boolean holdDetails) {
            this.holdDetails = holdDetails;
            return this;
        }

        /**
         * @return the settings
         * @throws InvalidSettingException ({@code connection}) when both a {@link #redisUri} and a
         *                                  {@link #connection} are set; ({@code commandTimeout}) when the
         *                                  {@link #commandTimeout} set is a third of the watchdog timeout or more
         */
        public LockClientConfig build() {
            if (redisUri != null && connection != null) {
                throw new InvalidSettingException("connection", "redisUri and connection are both set: give where "
                        + "Redis is one way (" + Redaction.uri(redisUri) + " or " + connection + ")");
            }
            if (commandTimeout != null && commandTimeout.multipliedBy(3).compareTo(watchdogTimeout) >= 0) {
                throw new InvalidSettingException("commandTimeout", "commandTimeout must be less than a third of "
                        + "watchdogTimeout (" + watchdogTimeout.toMillis() + " ms), so that a renewal never waits past "
                        + "the next one: " + commandTimeout.toMillis() + " ms");
            }
            return new LockClientConfig(this);
        }
    }
}
