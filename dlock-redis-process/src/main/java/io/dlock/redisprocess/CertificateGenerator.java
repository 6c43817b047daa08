package io.dlock.redisprocess;

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
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * Makes the files of a {@link TlsCertificates} with BouncyCastle ({@code org.bouncycastle:bcpkix-jdk18on}, an optional
 * dependency of this module): the only class that refers to it, loaded only when certificates are generated.
 */
final class CertificateGenerator {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final GeneralName[] DEFAULT_NAMES = {
        new GeneralName(GeneralName.iPAddress, RedisServer.HOST), new GeneralName(GeneralName.dNSName, "localhost")};

    private CertificateGenerator() {
    }

    /**
     * Writes a new CA, server and client certificates and the two PKCS#12 stores into {@code dir}.
     *
     * @param serverDnsNames the only names of the server certificate, or empty for {@code 127.0.0.1} and
     *                       {@code localhost}
     */
    static void generate(Path dir, char[] storePassword, List<String> serverDnsNames)
            throws IOException, GeneralSecurityException {
        try {
            Files.createDirectories(dir);
            KeyPair ca = keyPair();
            X500Name caName = new X500Name("CN=dlock-testkit CA " + Long.toHexString(RANDOM.nextLong()));
            X509Certificate caCert = certificate(caName, ca, caName, ca.getPublic(), true, null, null);
            // the server certificate also serves as a client one: cluster bus and replication peers ask for it
            KeyPair server = keyPair();
            GeneralName[] serverNames = serverDnsNames.isEmpty() ? DEFAULT_NAMES
                    : serverDnsNames.stream().map(n -> new GeneralName(GeneralName.dNSName, n))
                            .toArray(GeneralName[]::new);
            String subject = serverDnsNames.isEmpty() ? RedisServer.HOST : serverDnsNames.get(0);
            X509Certificate serverCert = certificate(caName, ca, new X500Name("CN=" + subject), server.getPublic(),
                    false, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
                    serverNames);
            KeyPair client = keyPair();
            X509Certificate clientCert = certificate(caName, ca, new X500Name("CN=dlock-testkit client"),
                    client.getPublic(), false, new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}, DEFAULT_NAMES);
            writePem(dir.resolve("ca.crt"), "CERTIFICATE", caCert.getEncoded());
            writePem(dir.resolve("server.crt"), "CERTIFICATE", serverCert.getEncoded());
            writePem(dir.resolve("server.key"), "PRIVATE KEY", server.getPrivate().getEncoded());
            writePem(dir.resolve("client.crt"), "CERTIFICATE", clientCert.getEncoded());
            writePem(dir.resolve("client.key"), "PRIVATE KEY", client.getPrivate().getEncoded());
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCert);
            store(trust, dir.resolve("truststore.p12"), storePassword);
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", client.getPrivate(), storePassword, new Certificate[] {clientCert, caCert});
            store(keys, dir.resolve("client.p12"), storePassword);
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048, RANDOM);
        return generator.generateKeyPair();
    }

    private static X509Certificate certificate(X500Name issuer, KeyPair issuerKeys, X500Name subject, PublicKey key,
                                               boolean isCa, KeyPurposeId[] purposes, GeneralName[] names)
            throws GeneralSecurityException, IOException, OperatorCreationException {
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
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
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

    private static void store(KeyStore store, Path file, char[] password) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password);
        }
    }
}
