package io.dlock;

import io.dlock.internal.Redaction;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
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
    /**
     * How long one Redis command may take before it fails with {@link LockException}, when the watchdog timeout is
     * at least 12 s (the default's is 30 s); with a shorter watchdog the default is a quarter of it (see
     * {@link Builder#commandTimeout}).
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    /** How long a blocking call may busy-wait for Redis's reply before it parks (see {@link Builder#spinWait}). */
    public static final Duration DEFAULT_SPIN_WAIT = Duration.ofNanos(200_000);
    /** How many times in a row a lock may pass between owners of one client (see {@link Builder#localHandoffs}). */
    public static final int DEFAULT_LOCAL_HANDOFFS = 8;
    /** The lock name whose channels are checked at connect (see {@link Builder#probeLockName}). */
    public static final String DEFAULT_PROBE_LOCK_NAME = "dlock-probe";

    private final String redisUri;
    private final Duration watchdogTimeout;
    private final Duration fairLockWaitTimeout;
    private final Duration commandTimeout;
    /** The command timeout the user set, or null when {@link #commandTimeout} follows the watchdog. */
    private final Duration explicitCommandTimeout;
    private final int syncReplicas;
    private final Duration syncReplicasTimeout;
    private final Executor executor;
    private final Duration spinWait;
    private final int localHandoffs;
    private final String probeLockName;
    private final Path trustStore;
    private final char[] trustStorePassword;
    private final Path trustedCertificates;
    private final Path keyStore;
    private final char[] keyStorePassword;
    private final boolean verifyPeer;
    private final TrustManagerFactory trustManagerFactory;
    private final KeyManagerFactory keyManagerFactory;

    private LockClientConfig(Builder b) {
        this.redisUri = b.redisUri;
        this.watchdogTimeout = b.watchdogTimeout;
        this.fairLockWaitTimeout = b.fairLockWaitTimeout;
        this.explicitCommandTimeout = b.commandTimeout;
        this.commandTimeout = b.commandTimeout != null ? b.commandTimeout : defaultCommandTimeout(b.watchdogTimeout);
        this.syncReplicas = b.syncReplicas;
        this.syncReplicasTimeout = b.syncReplicasTimeout;
        this.executor = b.executor;
        this.spinWait = b.spinWait;
        this.localHandoffs = b.localHandoffs;
        this.probeLockName = b.probeLockName;
        this.trustStore = b.trustStore;
        this.trustStorePassword = copy(b.trustStorePassword);
        this.trustedCertificates = b.trustedCertificates;
        this.keyStore = b.keyStore;
        this.keyStorePassword = copy(b.keyStorePassword);
        this.verifyPeer = b.verifyPeer;
        this.trustManagerFactory = b.trustManagerFactory;
        this.keyManagerFactory = b.keyManagerFactory;
    }

    private static char[] copy(char[] password) {
        return password == null ? null : password.clone();
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
        b.commandTimeout = explicitCommandTimeout;
        b.syncReplicas = syncReplicas;
        b.syncReplicasTimeout = syncReplicasTimeout;
        b.executor = executor;
        b.spinWait = spinWait;
        b.localHandoffs = localHandoffs;
        b.probeLockName = probeLockName;
        b.trustStore = trustStore;
        b.trustStorePassword = copy(trustStorePassword);
        b.trustedCertificates = trustedCertificates;
        b.keyStore = keyStore;
        b.keyStorePassword = copy(keyStorePassword);
        b.verifyPeer = verifyPeer;
        b.trustManagerFactory = trustManagerFactory;
        b.keyManagerFactory = keyManagerFactory;
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

    public Duration syncReplicasTimeout() {
        return syncReplicasTimeout;
    }

    /** @return the busy-wait budget of a blocking call before it parks; zero = never spin */
    public Duration spinWait() {
        return spinWait;
    }

    /** @return how many times in a row a lock may pass straight between owners of this client */
    public int localHandoffs() {
        return localHandoffs;
    }

    /** @return the lock name whose channels the client checks at connect; see {@link Builder#probeLockName} */
    public String probeLockName() {
        return probeLockName;
    }

    /** @return the trust store (PKCS#12 or JKS) that TLS server certificates are checked against, if set */
    public Optional<Path> trustStore() {
        return Optional.ofNullable(trustStore);
    }

    /** @return a copy of the trust store's password, or null; never shown by {@link #toString()} */
    public char[] trustStorePassword() {
        return copy(trustStorePassword);
    }

    /** @return the PEM file of CA certificates that TLS server certificates are checked against, if set */
    public Optional<Path> trustedCertificates() {
        return Optional.ofNullable(trustedCertificates);
    }

    /** @return the key store (PKCS#12 or JKS) holding the client certificate for mutual TLS, if set */
    public Optional<Path> keyStore() {
        return Optional.ofNullable(keyStore);
    }

    /** @return a copy of the key store's password, or null; never shown by {@link #toString()} */
    public char[] keyStorePassword() {
        return copy(keyStorePassword);
    }

    /** @return whether a TLS server's certificate and host name are verified (default true) */
    public boolean verifyPeer() {
        return verifyPeer;
    }

    /** @return the trust managers that TLS server certificates are checked with, if set */
    public Optional<TrustManagerFactory> trustManagerFactory() {
        return Optional.ofNullable(trustManagerFactory);
    }

    /** @return the key managers that present the client certificate (mutual TLS), if set */
    public Optional<KeyManagerFactory> keyManagerFactory() {
        return Optional.ofNullable(keyManagerFactory);
    }

    /** @return whether any TLS option differs from its default (they need a TLS URI) */
    public boolean hasTlsOptions() {
        return trustStore != null || trustedCertificates != null || keyStore != null || !verifyPeer
                || trustManagerFactory != null || keyManagerFactory != null;
    }

    /** @return the executor for async completions and listeners, if one was given (else the client owns one) */
    public Optional<Executor> executor() {
        return Optional.ofNullable(executor);
    }

    @Override
    public String toString() {
        return "LockClientConfig{redisUri=" + redactedUri() + ", watchdogTimeout=" + watchdogTimeout
                + ", fairLockWaitTimeout=" + fairLockWaitTimeout + ", commandTimeout=" + commandTimeout
                + ", syncReplicas=" + syncReplicas + "/" + syncReplicasTimeout + ", spinWait=" + spinWait
                + ", localHandoffs=" + localHandoffs + ", probeLockName=" + probeLockName
                + ", tls={trustStore=" + trustStore + ", trustedCertificates=" + trustedCertificates + ", keyStore="
                + keyStore + ", verifyPeer=" + verifyPeer + "}}";
    }

    private String redactedUri() {
        return Redaction.uri(redisUri);
    }

    /** Mutable builder; not thread-safe. Every setter validates its argument at once. */
    public static final class Builder {
        private String redisUri = "redis://localhost:6379";
        private Duration watchdogTimeout = DEFAULT_WATCHDOG_TIMEOUT;
        private Duration fairLockWaitTimeout = DEFAULT_FAIR_LOCK_WAIT_TIMEOUT;
        private Duration commandTimeout; // null: follows the watchdog timeout
        private int syncReplicas;
        private Duration syncReplicasTimeout = Duration.ofSeconds(1);
        private Executor executor;
        private Duration spinWait = DEFAULT_SPIN_WAIT;
        private int localHandoffs = DEFAULT_LOCAL_HANDOFFS;
        private String probeLockName = DEFAULT_PROBE_LOCK_NAME;
        private Path trustStore;
        private char[] trustStorePassword;
        private Path trustedCertificates;
        private Path keyStore;
        private char[] keyStorePassword;
        private boolean verifyPeer = true;
        private TrustManagerFactory trustManagerFactory;
        private KeyManagerFactory keyManagerFactory;

        private Builder() {
        }

        /**
         * Where Redis is; default {@code redis://localhost:6379}. Standalone, Sentinel and Cluster forms: see
         * {@link LockClient#connect(String)}.
         */
        public Builder redisUri(String redisUri) {
            Objects.requireNonNull(redisUri, "redisUri");
            if (redisUri.isBlank()) {
                throw new InvalidSettingException("redisUri", "redisUri is blank");
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

        /**
         * How long one Redis command may take (at least 1 ms, and less than a third of the watchdog timeout, checked
         * at {@link #build()}: a renewal that may still be waiting for its reply when the next one is due could let
         * a hold run out unnoticed). Unset, it is {@link LockClientConfig#DEFAULT_COMMAND_TIMEOUT} or a quarter of
         * the watchdog timeout, whichever is shorter.
         */
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
                throw new InvalidSettingException("syncReplicas", "syncReplicas: replicas is negative: " + replicas);
            }
            this.syncReplicas = replicas;
            this.syncReplicasTimeout = atLeast(timeout, Duration.ofMillis(1), "syncReplicas");
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
         * How long a blocking call ({@code lock()}, {@code tryLock()}, {@code unlock()}, …) may busy-wait for Redis's
         * reply before it parks its thread; default 200 µs, {@link Duration#ZERO} = never.
         *
         * <p>Parking and waking a thread costs about as much as a loopback round trip, so a lone caller that spins
         * gets its answer in about half the time. Only the one thread of the JVM that is blocked in a dlock call
         * while no other is spins; it stops when a second one blocks, after this budget, or when the reply arrives,
         * and nothing spins on a single-CPU machine. The cost is at most this much CPU time per call; set zero
         * where CPU time is billed more dearly than latency. Async methods never spin.
         *
         * @throws InvalidSettingException if negative or above 10 ms
         */
        public Builder spinWait(Duration spinWait) {
            Objects.requireNonNull(spinWait, "spinWait");
            if (spinWait.isNegative() || spinWait.compareTo(Duration.ofMillis(10)) > 0) {
                throw new InvalidSettingException("spinWait", "spinWait must be between 0 and 10 ms: " + spinWait);
            }
            this.spinWait = spinWait;
            return this;
        }

        /**
         * How many times in a row a (non-fair, non-fenced) lock may pass straight from one owner of this client to
         * another that waits for it; default 8, 0 = never.
         *
         * <p>Owners of one client (threads of one JVM) that want a lock another of them holds wait inside the
         * client, without asking Redis (whose answer could only be "busy"). When the holder unlocks and one of them
         * waits, one script call moves the lock to it: the lock is never free in between and nothing is published.
         * That halves the round trips of a contended hand-over and removes the failed attempts. Other clients,
         * Redisson's included, are woken only when the lock is really released, so after this many hand-offs in a
         * row the lock is released the usual way and everyone competes again: no client keeps a lock to itself
         * for longer than that many critical sections. Waiters inside a client are served in arrival order.
         *
         * @throws InvalidSettingException if negative
         */
        public Builder localHandoffs(int maxInARow) {
            if (maxInARow < 0) {
                throw new InvalidSettingException("localHandoffs", "localHandoffs is negative: " + maxInARow);
            }
            this.localHandoffs = maxInARow;
            return this;
        }

        /**
         * A lock name of the kind this client uses, with which the client checks at connect that its Redis user may
         * publish and subscribe on the channels of every lock kind ({@code redisson_lock__channel:{NAME}}, a
         * fair-lock waiter's {@code redisson_lock__channel:{NAME}:…}, {@code redisson_rwlock:{NAME}}); default
         * {@value LockClientConfig#DEFAULT_PROBE_LOCK_NAME}. The check publishes an empty message on each, which no
         * lock of either library acts on, and subscribes to and unsubscribes from each.
         *
         * <p>Where an ACL rule restricts lock names to a prefix (README, "Redis ACL"), set a name with that prefix,
         * e.g. {@code "lock:dlock-probe"}: otherwise connecting fails. A user that may not use these channels gets a
         * {@link LockException} from {@link LockClient#create} naming the channel, instead of locks whose release
         * fails.
         *
         * @throws InvalidSettingException if blank
         */
        public Builder probeLockName(String lockName) {
            Objects.requireNonNull(lockName, "probeLockName");
            if (lockName.isBlank()) {
                throw new InvalidSettingException("probeLockName", "probeLockName is blank");
            }
            this.probeLockName = lockName;
            return this;
        }

        /**
         * TLS ({@code rediss://}, {@code rediss-cluster://}): trust the server certificates that this trust store's
         * certificates sign, instead of the JVM's default trust store. Read at connect.
         *
         * @param file     a PKCS#12 or JKS file
         * @param password its password, or null; copied (clear your array after the call if you wish); never shown
         * @throws InvalidSettingException when {@code file} is not a readable file, or {@link #trustedCertificates}
         *                                  is set too (at {@link #build()})
         */
        public Builder trustStore(Path file, char[] password) {
            this.trustStore = readable(file, "trustStore");
            this.trustStorePassword = copy(password);
            return this;
        }

        /**
         * TLS: trust the server certificates that these PEM CA certificates (e.g. Redis's {@code tls-ca-cert-file})
         * sign, instead of the JVM's default trust store. Read at connect.
         *
         * @throws InvalidSettingException when {@code pemFile} is not a readable file, or {@link #trustStore} is
         *                                  set too (at {@link #build()})
         */
        public Builder trustedCertificates(Path pemFile) {
            this.trustedCertificates = readable(pemFile, "trustedCertificates");
            return this;
        }

        /**
         * TLS: present the client certificate of this key store (mutual TLS, {@code tls-auth-clients yes}). Read at
         * connect.
         *
         * @param file     a PKCS#12 or JKS file holding one private key and its certificate chain
         * @param password its password (also the key's), or null; copied; never shown
         * @throws InvalidSettingException when {@code file} is not a readable file
         */
        public Builder keyStore(Path file, char[] password) {
            this.keyStore = readable(file, "keyStore");
            this.keyStorePassword = copy(password);
            return this;
        }

        /**
         * TLS: whether the server's certificate must be trusted and name the host connected to; default true.
         * {@code false} accepts any certificate: the connection is encrypted but anyone on the path can pose as
         * the server, so use it only for tests.
         */
        public Builder verifyPeer(boolean verifyPeer) {
            this.verifyPeer = verifyPeer;
            return this;
        }

        /**
         * TLS: check server certificates with these (initialised) trust managers, instead of the JVM's default trust
         * store; for trust material held in memory (a Spring Boot SSL bundle, a secrets manager). Used at every
         * connect.
         *
         * @throws InvalidSettingException when {@link #trustStore} or {@link #trustedCertificates} is set too (at
         *                                  {@link #build()})
         */
        public Builder trustManagerFactory(TrustManagerFactory trustManagers) {
            this.trustManagerFactory = Objects.requireNonNull(trustManagers, "trustManagerFactory");
            return this;
        }

        /**
         * TLS: present the client certificate of these (initialised) key managers (mutual TLS); for key material held
         * in memory. Used at every connect.
         *
         * @throws InvalidSettingException when {@link #keyStore} is set too (at {@link #build()})
         */
        public Builder keyManagerFactory(KeyManagerFactory keyManagers) {
            this.keyManagerFactory = Objects.requireNonNull(keyManagers, "keyManagerFactory");
            return this;
        }

        /**
         * @throws InvalidSettingException when more than one source of trust ({@link #trustStore},
         *                                  {@link #trustedCertificates}, {@link #trustManagerFactory}) or of the
         *                                  client certificate ({@link #keyStore}, {@link #keyManagerFactory}) is set,
         *                                  or when the {@link #commandTimeout} set is a third of the watchdog timeout
         *                                  or more
         */
        public LockClientConfig build() {
            int trustSources = (trustStore != null ? 1 : 0) + (trustedCertificates != null ? 1 : 0)
                    + (trustManagerFactory != null ? 1 : 0);
            if (trustSources > 1) {
                throw new InvalidSettingException("trustStore",
                        "more than one of trustStore, trustedCertificates and trustManagerFactory is set; give one");
            }
            if (keyStore != null && keyManagerFactory != null) {
                throw new InvalidSettingException("keyStore", "keyStore and keyManagerFactory are both set; give one");
            }
            if (commandTimeout != null && commandTimeout.multipliedBy(3).compareTo(watchdogTimeout) >= 0) {
                throw new InvalidSettingException("commandTimeout", "commandTimeout must be less than a third of watchdogTimeout ("
                        + watchdogTimeout.toMillis() + " ms), so that a renewal never waits past the next one: "
                        + commandTimeout.toMillis() + " ms");
            }
            return new LockClientConfig(this);
        }

        private static Path readable(Path file, String parameter) {
            Objects.requireNonNull(file, parameter);
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw new InvalidSettingException(parameter, parameter + " is not a readable file: " + file);
            }
            return file;
        }

        private static Duration atLeast(Duration value, Duration min, String parameter) {
            Objects.requireNonNull(value, parameter);
            if (value.compareTo(min) < 0) {
                throw new InvalidSettingException(parameter, parameter + " must be at least " + min.toMillis() + " ms: "
                        + value);
            }
            return value;
        }
    }
}
