package io.dlock;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable TLS settings of a {@link LockClient}: which server certificates to trust, which client certificate to
 * present (mutual TLS), and how the server is verified ({@link Verification}: chain and host name, chain only, or not
 * at all). Set with {@link LockClientConfig.Builder#tls}; they
 * apply to every TLS connection of the client (data nodes and Sentinels), and need a TLS connection
 * ({@code rediss://}, {@code rediss-sentinel://}, {@code rediss-cluster://}, or a {@link RedisConnection} with
 * {@link RedisConnection.Builder#tls(boolean) tls(true)}): with a plain-text one, connecting is refused.
 *
 * <p>The {@linkplain #defaults() defaults} trust the JVM's default trust store, present no client certificate and
 * verify the server's certificate and host name. Refused values throw {@link InvalidSettingException} whose
 * {@link InvalidSettingException#setting() setting} is {@code tls.} and the builder method, e.g.
 * {@code tls.trustStore}. Passwords are copied in and out and never shown by {@link #toString()}.
 */
public final class TlsSettings {
    /** How a server's certificate is verified ({@link Builder#verification}). */
    public enum Verification {
        /** The certificate must be signed by a trusted CA and name the host connected to (the default). */
        FULL,
        /**
         * The certificate must be signed by a trusted CA; the host name is not checked. Anyone holding a certificate
         * of that CA can pose as the server, so trust a CA that signs only your Redis servers.
         */
        CA,
        /** Any certificate is accepted: encrypted, not authenticated; for tests only. */
        NONE
    }

    private static final TlsSettings DEFAULTS = builder().build();

    private final Path trustStore;
    private final char[] trustStorePassword;
    private final Path trustedCertificates;
    private final Path keyStore;
    private final char[] keyStorePassword;
    private final Verification verification;
    private final TrustManagerFactory trustManagerFactory;
    private final KeyManagerFactory keyManagerFactory;

    private TlsSettings(Builder b) {
        this.trustStore = b.trustStore;
        this.trustStorePassword = SettingChecks.copy(b.trustStorePassword);
        this.trustedCertificates = b.trustedCertificates;
        this.keyStore = b.keyStore;
        this.keyStorePassword = SettingChecks.copy(b.keyStorePassword);
        this.verification = b.verification;
        this.trustManagerFactory = b.trustManagerFactory;
        this.keyManagerFactory = b.keyManagerFactory;
    }

    /** @return the settings of a client that sets none: the JVM's trust store, no client certificate, verified */
    public static TlsSettings defaults() {
        return DEFAULTS;
    }

    /** @return a builder starting from the {@linkplain #defaults() defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from these settings */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.trustStore = trustStore;
        b.trustStorePassword = SettingChecks.copy(trustStorePassword);
        b.trustedCertificates = trustedCertificates;
        b.keyStore = keyStore;
        b.keyStorePassword = SettingChecks.copy(keyStorePassword);
        b.verification = verification;
        b.trustManagerFactory = trustManagerFactory;
        b.keyManagerFactory = keyManagerFactory;
        return b;
    }

    /** @return the trust store (PKCS#12 or JKS) that server certificates are checked against, if set */
    public Optional<Path> trustStore() {
        return Optional.ofNullable(trustStore);
    }

    /** @return a copy of the trust store's password, or null; never shown by {@link #toString()} */
    public char[] trustStorePassword() {
        return SettingChecks.copy(trustStorePassword);
    }

    /** @return the PEM file of CA certificates that server certificates are checked against, if set */
    public Optional<Path> trustedCertificates() {
        return Optional.ofNullable(trustedCertificates);
    }

    /** @return the key store (PKCS#12 or JKS) holding the client certificate for mutual TLS, if set */
    public Optional<Path> keyStore() {
        return Optional.ofNullable(keyStore);
    }

    /** @return a copy of the key store's password, or null; never shown by {@link #toString()} */
    public char[] keyStorePassword() {
        return SettingChecks.copy(keyStorePassword);
    }

    /** @return whether the server's certificate is verified at all: {@link #verification()} is not {@code NONE} */
    public boolean verifyPeer() {
        return verification != Verification.NONE;
    }

    /** @return how the server's certificate is verified (default {@link Verification#FULL}) */
    public Verification verification() {
        return verification;
    }

    /** @return the trust managers that server certificates are checked with, if set */
    public Optional<TrustManagerFactory> trustManagerFactory() {
        return Optional.ofNullable(trustManagerFactory);
    }

    /** @return the key managers that present the client certificate (mutual TLS), if set */
    public Optional<KeyManagerFactory> keyManagerFactory() {
        return Optional.ofNullable(keyManagerFactory);
    }

    /** @return whether every setting has its default value (then a plain-text connection is fine) */
    public boolean isDefault() {
        return trustStore == null && trustedCertificates == null && keyStore == null
                && verification == Verification.FULL
                && trustManagerFactory == null && keyManagerFactory == null;
    }

    /** @return the settings without passwords (the files are named; managers only as being set) */
    @Override
    public String toString() {
        return "{trustStore=" + trustStore + ", trustedCertificates=" + trustedCertificates + ", keyStore=" + keyStore
                + ", verification=" + verification + (trustManagerFactory != null ? ", trustManagerFactory=set" : "")
                + (keyManagerFactory != null ? ", keyManagerFactory=set" : "") + "}";
    }

    /** Mutable builder; not thread-safe. Every setter validates its argument at once, {@link #build()} the mix. */
    public static final class Builder {
        private Path trustStore;
        private char[] trustStorePassword;
        private Path trustedCertificates;
        private Path keyStore;
        private char[] keyStorePassword;
        private Verification verification = Verification.FULL;
        private TrustManagerFactory trustManagerFactory;
        private KeyManagerFactory keyManagerFactory;

        private Builder() {
        }

        /**
         * Trust the server certificates that this trust store's certificates sign, instead of the JVM's default trust
         * store. Read at connect.
         *
         * @param file     a PKCS#12 or JKS file
         * @param password its password, or null; copied (clear your array after the call if you wish); never shown
         * @throws InvalidSettingException ({@code tls.trustStore}) when {@code file} is not a readable file
         */
        public Builder trustStore(Path file, char[] password) {
            this.trustStore = SettingChecks.readableFile(file, "tls.trustStore");
            this.trustStorePassword = SettingChecks.copy(password);
            return this;
        }

        /**
         * Trust the server certificates that these PEM CA certificates (e.g. Redis's {@code tls-ca-cert-file}) sign,
         * instead of the JVM's default trust store. Read at connect.
         *
         * @throws InvalidSettingException ({@code tls.trustedCertificates}) when {@code pemFile} is not a readable file
         */
        public Builder trustedCertificates(Path pemFile) {
            this.trustedCertificates = SettingChecks.readableFile(pemFile, "tls.trustedCertificates");
            return this;
        }

        /**
         * Present the client certificate of this key store (mutual TLS, {@code tls-auth-clients yes}). Read at
         * connect.
         *
         * @param file     a PKCS#12 or JKS file holding one private key and its certificate chain
         * @param password its password (also the key's), or null; copied; never shown
         * @throws InvalidSettingException ({@code tls.keyStore}) when {@code file} is not a readable file
         */
        public Builder keyStore(Path file, char[] password) {
            this.keyStore = SettingChecks.readableFile(file, "tls.keyStore");
            this.keyStorePassword = SettingChecks.copy(password);
            return this;
        }

        /**
         * Whether the server's certificate must be trusted and name the host connected to; default true.
         * {@code true} is {@link #verification(Verification) verification(FULL)}, {@code false} is
         * {@code verification(NONE)}: any certificate is accepted, the connection is encrypted but anyone on the path
         * can pose as the server, so use it only for tests.
         */
        public Builder verifyPeer(boolean verifyPeer) {
            this.verification = verifyPeer ? Verification.FULL : Verification.NONE;
            return this;
        }

        /**
         * How the server's certificate is verified; default {@link Verification#FULL}. {@link Verification#CA}
         * suits Sentinel and Cluster deployments whose certificates carry only DNS names while the nodes are handed
         * out by IP address.
         *
         * @throws NullPointerException when {@code verification} is null
         */
        public Builder verification(Verification verification) {
            this.verification = Objects.requireNonNull(verification, "tls.verification");
            return this;
        }

        /**
         * Check server certificates with these (initialised) trust managers, instead of the JVM's default trust
         * store; for trust material held in memory (a Spring Boot SSL bundle, a secrets manager). Used at every
         * connect.
         */
        public Builder trustManagerFactory(TrustManagerFactory trustManagers) {
            this.trustManagerFactory = Objects.requireNonNull(trustManagers, "tls.trustManagerFactory");
            return this;
        }

        /**
         * Present the client certificate of these (initialised) key managers (mutual TLS); for key material held in
         * memory. Used at every connect.
         */
        public Builder keyManagerFactory(KeyManagerFactory keyManagers) {
            this.keyManagerFactory = Objects.requireNonNull(keyManagers, "tls.keyManagerFactory");
            return this;
        }

        /**
         * @return the settings
         * @throws InvalidSettingException when more than one source of trust is set ({@code tls.trustStore}:
         *                                  {@link #trustStore}, {@link #trustedCertificates},
         *                                  {@link #trustManagerFactory}), or more than one source of the client
         *                                  certificate ({@code tls.keyStore}: {@link #keyStore},
         *                                  {@link #keyManagerFactory})
         */
        public TlsSettings build() {
            int trustSources = (trustStore != null ? 1 : 0) + (trustedCertificates != null ? 1 : 0)
                    + (trustManagerFactory != null ? 1 : 0);
            if (trustSources > 1) {
                throw new InvalidSettingException("tls.trustStore", "more than one of tls.trustStore, "
                        + "tls.trustedCertificates and tls.trustManagerFactory is set; give one");
            }
            if (keyStore != null && keyManagerFactory != null) {
                throw new InvalidSettingException("tls.keyStore",
                        "tls.keyStore and tls.keyManagerFactory are both set; give one");
            }
            return new TlsSettings(this);
        }
    }
}
