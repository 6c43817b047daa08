package io.dlock.spring.boot.autoconfigure;

import io.dlock.LeaderElectionSettings;
import io.dlock.LockClientConfig;
import io.dlock.TuningSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code dlock.*} properties: one for each setting of {@link LockClientConfig}, grouped as it groups them
 * ({@code dlock.tls.*}, {@code dlock.tuning.*}), plus switches for the annotation support and the metrics, and the
 * timing of leader elections ({@code dlock.leader.elections.<name>.*}). Unset settings keep {@link LockClientConfig}'s
 * (and {@link LeaderElectionSettings}') defaults. Values are checked when the {@code LockClient} (the
 * {@code LeaderElections} bean) is created; a bad one fails start-up with a message naming the property.
 */
@ConfigurationProperties(prefix = "dlock")
public class DlockProperties {

    /**
     * Where Redis is, as a dlock URI (redis://, rediss://, redis-sentinel://, redis-cluster://; credentials
     * percent-encoded). When unset, dlock uses the application's spring.data.redis.* connection (or the
     * connection-details bean of a service connection) if there is one, else redis://localhost:6379.
     */
    private String redisUri;

    /** Lease of locks taken without one (at least 30 ms); the watchdog renews them every third of it. */
    private Duration watchdogTimeout = LockClientConfig.DEFAULT_WATCHDOG_TIMEOUT;

    /** How long a fair-lock waiter's place in the queue is kept at a time (at least 1 ms). */
    private Duration fairLockWaitTimeout = LockClientConfig.DEFAULT_FAIR_LOCK_WAIT_TIMEOUT;

    /**
     * How long one Redis command may take (at least 1 ms, and less than a third of the watchdog timeout). Unset: 3 s,
     * or a quarter of a watchdog timeout shorter than 12 s.
     */
    private Duration commandTimeout;

    /**
     * Whether plain locks write their hold record (since when, which thread), which inspect, dlock status and the
     * actuator show; off by default (one more key written per first acquisition).
     */
    private boolean holdDetails;

    private final SyncReplicas syncReplicas = new SyncReplicas();

    private final Tuning tuning = new Tuning();

    private final Tls tls = new Tls();

    private final Annotation annotation = new Annotation();

    private final Metrics metrics = new Metrics();

    private final Leader leader = new Leader();

    public String getRedisUri() {
        return redisUri;
    }

    public void setRedisUri(String redisUri) {
        this.redisUri = redisUri;
    }

    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    public void setWatchdogTimeout(Duration watchdogTimeout) {
        this.watchdogTimeout = watchdogTimeout;
    }

    public Duration getFairLockWaitTimeout() {
        return fairLockWaitTimeout;
    }

    public void setFairLockWaitTimeout(Duration fairLockWaitTimeout) {
        this.fairLockWaitTimeout = fairLockWaitTimeout;
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    public boolean isHoldDetails() {
        return holdDetails;
    }

    public void setHoldDetails(boolean holdDetails) {
        this.holdDetails = holdDetails;
    }

    public SyncReplicas getSyncReplicas() {
        return syncReplicas;
    }

    public Tuning getTuning() {
        return tuning;
    }

    public Tls getTls() {
        return tls;
    }

    public Annotation getAnnotation() {
        return annotation;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Leader getLeader() {
        return leader;
    }

    /** {@code dlock.sync-replicas.*}: confirm each acquisition on replicas with {@code WAIT}. */
    public static class SyncReplicas {

        /** How many replicas must confirm each first acquisition of a hold (0 = off). */
        private int replicas;

        /** How long WAIT may take (at least 1 ms). */
        private Duration timeout = Duration.ofSeconds(1);

        public int getReplicas() {
            return replicas;
        }

        public void setReplicas(int replicas) {
            this.replicas = replicas;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** {@code dlock.tuning.*}: settings most applications leave at their defaults ({@link TuningSettings}). */
    public static class Tuning {

        /** How long a blocking call may busy-wait for Redis's reply before it parks its thread (0 to 10 ms). */
        private Duration spinWait = TuningSettings.DEFAULT_SPIN_WAIT;

        /** How many times in a row a lock may pass straight between owners of this client (0 = never). */
        private int localHandoffs = TuningSettings.DEFAULT_LOCAL_HANDOFFS;

        /** A lock name whose channels the client checks at connect (use one your Redis ACL allows). */
        private String probeLockName = TuningSettings.DEFAULT_PROBE_LOCK_NAME;

        public Duration getSpinWait() {
            return spinWait;
        }

        public void setSpinWait(Duration spinWait) {
            this.spinWait = spinWait;
        }

        public int getLocalHandoffs() {
            return localHandoffs;
        }

        public void setLocalHandoffs(int localHandoffs) {
            this.localHandoffs = localHandoffs;
        }

        public String getProbeLockName() {
            return probeLockName;
        }

        public void setProbeLockName(String probeLockName) {
            this.probeLockName = probeLockName;
        }
    }

    /**
     * {@code dlock.tls.*}: TLS settings ({@link io.dlock.TlsSettings}) for a TLS connection: a rediss://
     * dlock.redis-uri or an SSL Spring Data Redis connection (give a bundle or files, not both).
     */
    public static class Tls {

        /** Name of a Spring Boot SSL bundle (spring.ssl.bundle.*) whose trust material and key dlock uses. */
        private String bundle;

        /** PKCS#12 or JKS trust store whose certificates sign the server's. */
        private String trustStore;

        /** Password of the trust store. */
        private String trustStorePassword;

        /** PEM file of CA certificates that sign the server's (instead of a trust store). */
        private String trustedCertificates;

        /** PKCS#12 or JKS key store with the client certificate (mutual TLS). */
        private String keyStore;

        /** Password of the key store (and its key). */
        private String keyStorePassword;

        /** Whether the server's certificate must be trusted and name the host (false only for tests). */
        private boolean verifyPeer = true;

        /**
         * How the server's certificate is checked: full (trusted and naming the host), ca (trusted, host name not
         * checked: Sentinel and Cluster nodes handed out by IP with certificates naming DNS names), none (tests only).
         * Unset (the default): full, or none when verify-peer is false. Takes precedence over verify-peer.
         */
        private io.dlock.TlsSettings.Verification verify;

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }

        public String getTrustStore() {
            return trustStore;
        }

        public void setTrustStore(String trustStore) {
            this.trustStore = trustStore;
        }

        public String getTrustStorePassword() {
            return trustStorePassword;
        }

        public void setTrustStorePassword(String trustStorePassword) {
            this.trustStorePassword = trustStorePassword;
        }

        public String getTrustedCertificates() {
            return trustedCertificates;
        }

        public void setTrustedCertificates(String trustedCertificates) {
            this.trustedCertificates = trustedCertificates;
        }

        public String getKeyStore() {
            return keyStore;
        }

        public void setKeyStore(String keyStore) {
            this.keyStore = keyStore;
        }

        public String getKeyStorePassword() {
            return keyStorePassword;
        }

        public void setKeyStorePassword(String keyStorePassword) {
            this.keyStorePassword = keyStorePassword;
        }

        public boolean isVerifyPeer() {
            return verifyPeer;
        }

        public void setVerifyPeer(boolean verifyPeer) {
            this.verifyPeer = verifyPeer;
        }

        public io.dlock.TlsSettings.Verification getVerify() {
            return verify;
        }

        public void setVerify(io.dlock.TlsSettings.Verification verify) {
            this.verify = verify;
        }
    }

    /** {@code dlock.annotation.*}: {@code @DistributedLocked} and {@code @DistributedConcurrencyLimit} annotations. */
    public static class Annotation {

        /**
         * Whether methods annotated with @DistributedLocked run under their lock, and those annotated with
         * @DistributedConcurrencyLimit under a semaphore permit.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** {@code dlock.metrics.*}: Micrometer meters of the lock client. */
    public static class Metrics {

        /** Whether dlock's meters are bound to the application's MeterRegistry. */
        private boolean enabled = true;

        /**
         * Regular expressions of lock names that get their own tag on the meters (opt-in: each name makes its own
         * time series); a name matching any of them is tagged. Empty: no per-name tags.
         */
        private List<String> lockNameTags = new ArrayList<>();

        /**
         * Whether each wait is also a Micrometer Observation (traces get the object's name): lock acquisitions
         * (dlock.acquire), permit acquisitions of both semaphores (dlock.permit.acquire) and latch awaits
         * (dlock.latch.await). Off by default: Spring Boot's default observation handler would add a second timer of
         * each of these names, with other tag keys, which Prometheus refuses.
         */
        private boolean observeAcquisitions;

        public boolean isObserveAcquisitions() {
            return observeAcquisitions;
        }

        public void setObserveAcquisitions(boolean observeAcquisitions) {
            this.observeAcquisitions = observeAcquisitions;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getLockNameTags() {
            return lockNameTags;
        }

        public void setLockNameTags(List<String> lockNameTags) {
            this.lockNameTags = lockNameTags;
        }
    }

    /** {@code dlock.leader.*}: leader elections ({@code @LeaderOnly} methods, the actuator endpoint). */
    public static class Leader {

        /**
         * The elections this application runs, by name (the same in every instance): timing and auto-start. A name
         * that a @LeaderOnly method gives and that is not listed here runs with the defaults. Names with characters
         * other than lower-case letters, digits and dashes go in brackets: dlock.leader.elections[role:billing].lease.
         */
        private Map<String, Election> elections = new LinkedHashMap<>();

        public Map<String, Election> getElections() {
            return elections;
        }

        public void setElections(Map<String, Election> elections) {
            this.elections = elections;
        }
    }

    /**
     * {@code dlock.leader.elections.<name>.*}: one election ({@link LeaderElectionSettings}). The renew deadline,
     * stretched by 1 %, must stay below the lease, and the retry period below the renew deadline.
     */
    public static class Election {

        /** The leader's lock lease in Redis, counted from each confirmed renewal's send (at least 3 ms). */
        private Duration lease = LeaderElectionSettings.DEFAULT_LEASE;

        /** How long a leader goes without a confirmed renewal before it steps down (at least 2 ms). */
        private Duration renewDeadline = LeaderElectionSettings.DEFAULT_RENEW_DEADLINE;

        /** How often a leader renews, and a candidate that lost tries again at the latest (at least 1 ms). */
        private Duration retryPeriod = LeaderElectionSettings.DEFAULT_RETRY_PERIOD;

        /**
         * How long a revoked leader's work (its @LeaderOnly calls) may take to stop before the lock is released
         * anyway (zero or more).
         */
        private Duration stopTimeout = LeaderElectionSettings.DEFAULT_STOP_TIMEOUT;

        /** Whether the election starts with the application; when false, LeaderElections.start(name) starts it. */
        private boolean autoStart = true;

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public Duration getRenewDeadline() {
            return renewDeadline;
        }

        public void setRenewDeadline(Duration renewDeadline) {
            this.renewDeadline = renewDeadline;
        }

        public Duration getRetryPeriod() {
            return retryPeriod;
        }

        public void setRetryPeriod(Duration retryPeriod) {
            this.retryPeriod = retryPeriod;
        }

        public Duration getStopTimeout() {
            return stopTimeout;
        }

        public void setStopTimeout(Duration stopTimeout) {
            this.stopTimeout = stopTimeout;
        }

        public boolean isAutoStart() {
            return autoStart;
        }

        public void setAutoStart(boolean autoStart) {
            this.autoStart = autoStart;
        }
    }
}
