package io.dlock.testkit;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/**
 * A throw-away certificate authority with a server certificate (for {@code 127.0.0.1} and {@code localhost}) and a
 * client certificate, written to one directory: what a TLS {@code redis-server} and its clients need. RSA 2048,
 * SHA-256, valid from a day ago for a day. Immutable once generated; thread-safe.
 *
 * <p>Files: {@code ca.crt} (PEM), {@code server.crt}/{@code server.key} and {@code client.crt}/{@code client.key}
 * (PEM; keys unencrypted PKCS#8), {@code truststore.p12} (the CA) and {@code client.p12} (client key and chain), the
 * PKCS#12 stores protected by {@link #storePassword()}.
 */
public final class TlsCertificates {
    private static final String STORE_PASSWORD = "testkit-store-pw";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;

    private TlsCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * Generates a new CA and its certificates into {@code dir} (created if missing; files there are overwritten).
     *
     * @throws IllegalStateException when the certificates cannot be made or written
     */
    public static TlsCertificates generate(Path dir) {
        try {
            Files.createDirectories(dir);
            KeyPair ca = keyPair();
            X500Name caName = new X500Name("CN=dlock-testkit CA " + Long.toHexString(RANDOM.nextLong()));
            X509Certificate caCert = certificate(caName, ca, caName, ca.getPublic(), true, null);
            KeyPair server = keyPair();
            X509Certificate serverCert = certificate(caName, ca, new X500Name("CN=127.0.0.1"), server.getPublic(),
                    false, KeyPurposeId.id_kp_serverAuth);
            KeyPair client = keyPair();
            X509Certificate clientCert = certificate(caName, ca, new X500Name("CN=dlock-testkit client"),
                    client.getPublic(), false, KeyPurposeId.id_kp_clientAuth);
            writePem(dir.resolve("ca.crt"), "CERTIFICATE", caCert.getEncoded());
            writePem(dir.resolve("server.crt"), "CERTIFICATE", serverCert.getEncoded());
            writePem(dir.resolve("server.key"), "PRIVATE KEY", server.getPrivate().getEncoded());
            writePem(dir.resolve("client.crt"), "CERTIFICATE", clientCert.getEncoded());
            writePem(dir.resolve("client.key"), "PRIVATE KEY", client.getPrivate().getEncoded());
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCert);
            store(trust, dir.resolve("truststore.p12"));
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", client.getPrivate(), STORE_PASSWORD.toCharArray(),
                    new Certificate[] {clientCert, caCert});
            store(keys, dir.resolve("client.p12"));
            return new TlsCertificates(dir);
        } catch (IOException | GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
            throw new IllegalStateException("cannot generate TLS certificates in " + dir + ": " + e, e);
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
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), RANDOM);
            return context.getSocketFactory();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the certificates of " + dir + ": " + e, e);
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048, RANDOM);
        return generator.generateKeyPair();
    }

    private static X509Certificate certificate(X500Name issuer, KeyPair issuerKeys, X500Name subject,
                                               java.security.PublicKey key, boolean isCa, KeyPurposeId purpose)
            throws GeneralSecurityException, IOException, org.bouncycastle.operator.OperatorCreationException {
        Instant now = Instant.now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer,
                new BigInteger(64, RANDOM).abs().add(BigInteger.ONE), Date.from(now.minus(Duration.ofDays(1))),
                Date.from(now.plus(Duration.ofDays(1))), subject, key);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
        if (isCa) {
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } else {
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.iPAddress, RedisServer.HOST),
                    new GeneralName(GeneralName.dNSName, "localhost")}));
        }
        PrivateKey signingKey = issuerKeys.getPrivate();
        ContentSigner signer = new JcaContentSignerBuilder("SHA256withRSA").build(signingKey);
        return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    }

    private static void writePem(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n",
                StandardCharsets.US_ASCII);
    }

    private static void store(KeyStore store, Path file) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, STORE_PASSWORD.toCharArray());
        }
    }
}
