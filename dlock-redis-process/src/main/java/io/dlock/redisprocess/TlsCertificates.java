package io.dlock.redisprocess;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.List;

/**
 * A throw-away certificate authority with a server certificate (for {@code 127.0.0.1} and {@code localhost}) and a
 * client certificate, written to one directory: what a TLS {@code redis-server} and its clients need. RSA 2048,
 * SHA-256, valid from a day ago for a day. Immutable once generated; thread-safe.
 *
 * <p>Files: {@code ca.crt} (PEM), {@code server.crt}/{@code server.key} and {@code client.crt}/{@code client.key}
 * (PEM; keys unencrypted PKCS#8), {@code truststore.p12} (the CA) and {@code client.p12} (client key and chain), the
 * PKCS#12 stores protected by {@link #storePassword()}.
 *
 * <p>{@link #generate(Path)} needs BouncyCastle ({@value #BOUNCY_CASTLE}) on the class path, an optional dependency of
 * this module (dlock-testkit brings it); everything else here uses the JDK only.
 */
public final class TlsCertificates {
    /** The artifact {@link #generate(Path)} needs on the class path: {@value}. */
    public static final String BOUNCY_CASTLE = "org.bouncycastle:bcpkix-jdk18on";

    private static final String STORE_PASSWORD = "testkit-store-pw";
    private static final String BOUNCY_CASTLE_PROBE = "org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder";

    private final Path dir;

    private TlsCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * Generates a new CA and its certificates into {@code dir} (created if missing; files there are overwritten).
     * Blocks while it makes three RSA keys (a fraction of a second).
     *
     * @throws IllegalStateException when BouncyCastle is not on the class path (the message says to add
     *                               {@value #BOUNCY_CASTLE}), or when the certificates cannot be made or written
     */
    public static TlsCertificates generate(Path dir) {
        return generate(dir, List.of());
    }

    /**
     * As {@link #generate(Path)}, with a server certificate that names only {@code serverDnsNames} (its subject is
     * the first), no IP address; an empty list gives the default ({@code 127.0.0.1} and {@code localhost}).
     *
     * @throws IllegalStateException as {@link #generate(Path)}
     */
    public static TlsCertificates generate(Path dir, List<String> serverDnsNames) {
        requireBouncyCastle();
        try {
            CertificateGenerator.generate(dir, STORE_PASSWORD.toCharArray(), List.copyOf(serverDnsNames));
            return new TlsCertificates(dir);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot generate TLS certificates in " + dir + ": " + e, e);
        }
    }

    /** @throws IllegalStateException saying which artifact to add when BouncyCastle is missing */
    static void requireBouncyCastle() {
        try {
            Class.forName(BOUNCY_CASTLE_PROBE, false, TlsCertificates.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("TLS test certificates are generated with BouncyCastle, which is not on"
                    + " the class path: add " + BOUNCY_CASTLE + " to generate test certificates (dlock-testkit"
                    + " depends on it; dlock-redis-process has it as an optional dependency)", e);
        }
    }

    /** @return the directory of the files */
    public Path dir() {
        return dir;
    }

    /** @return the CA certificate, PEM ({@code --tls-ca-cert-file}; what a client trusts) */
    public Path caCertificate() {
        return dir.resolve("ca.crt");
    }

    public Path serverCertificate() {
        return dir.resolve("server.crt");
    }

    public Path serverKey() {
        return dir.resolve("server.key");
    }

    public Path clientCertificate() {
        return dir.resolve("client.crt");
    }

    public Path clientKey() {
        return dir.resolve("client.key");
    }

    /** @return a PKCS#12 trust store holding the CA certificate; password {@link #storePassword()} */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /** @return a PKCS#12 key store holding the client key and certificate chain; password {@link #storePassword()} */
    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    /** @return a new copy of the password of both PKCS#12 stores */
    public char[] storePassword() {
        return STORE_PASSWORD.toCharArray();
    }

    /** @return sockets that trust the CA and present the client certificate when asked */
    public SSLSocketFactory socketFactory() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (var in = Files.newInputStream(trustStore())) {
                trust.load(in, storePassword());
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (var in = Files.newInputStream(clientKeyStore())) {
                keys.load(in, storePassword());
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, storePassword());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), new SecureRandom());
            return context.getSocketFactory();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the certificates of " + dir + ": " + e, e);
        }
    }
}
