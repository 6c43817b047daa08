package io.dlock.cli;

import io.dlock.LockClientConfig;
import io.dlock.TlsSettings;
import io.dlock.TuningSettings;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * How to connect besides {@code --redis}: the password kept off the command line, the probe lock name of a
 * least-privilege ACL rule, and TLS trust and client certificate. A picocli mixin of every command; an option given
 * before the command name counts as given after it ({@link #merged}).
 *
 * <p>Secrets never come from the command line, which every local user can read ({@code /proc/PID/cmdline}, {@code ps}):
 * the Redis password comes from {@code --password-file} or {@code $DLOCK_PASSWORD}, store passwords from
 * {@code $DLOCK_TLS_TRUST_STORE_PASSWORD} and {@code $DLOCK_TLS_KEY_STORE_PASSWORD} (a process's environment is
 * readable by its own user only).
 */
final class ConnectionOptions {
    static final String PASSWORD_ENV = "DLOCK_PASSWORD";
    static final String TRUST_STORE_PASSWORD_ENV = "DLOCK_TLS_TRUST_STORE_PASSWORD";
    static final String KEY_STORE_PASSWORD_ENV = "DLOCK_TLS_KEY_STORE_PASSWORD";

    @Option(names = "--password-file", paramLabel = "FILE",
            description = "Read the Redis password from the first line of FILE (else $" + PASSWORD_ENV + "), so that "
                    + "it is not on the command line, which every local user can read. The user, if any, stays in "
                    + "the URI: redis://user@host:port.")
    Path passwordFile;

    @Option(names = "--probe-lock-name", paramLabel = "NAME",
            description = "Lock name whose channels are checked at connect (default dlock-probe); with an ACL rule "
                    + "that allows lock names with a prefix only, a name with that prefix, e.g. lock:dlock-probe.")
    String probeLockName;

    @Option(names = "--tls-trusted-certificates", paramLabel = "PEM",
            description = "Trust the server certificates these PEM CA certificates sign (rediss:// only).")
    Path trustedCertificates;

    @Option(names = "--tls-trust-store", paramLabel = "FILE",
            description = "Trust the CAs of this PKCS#12 or JKS trust store; its password from $"
                    + TRUST_STORE_PASSWORD_ENV + ".")
    Path trustStore;

    @Option(names = "--tls-key-store", paramLabel = "FILE",
            description = "Present the client certificate of this PKCS#12 or JKS key store (mutual TLS); its password "
                    + "from $" + KEY_STORE_PASSWORD_ENV + ".")
    Path keyStore;

    @Option(names = "--tls-verify", paramLabel = "MODE",
            description = "How the server certificate is checked: full (chain and host name, the default), ca (chain "
                    + "only: for Sentinel and Cluster nodes handed out by IP with certificates naming DNS names), "
                    + "none (tests only).")
    TlsSettings.Verification verify;

    /**
     * @param chain this command's options first, then its parents'
     * @return for each option the first value given along {@code chain}
     */
    static ConnectionOptions merged(Iterable<ConnectionOptions> chain) {
        ConnectionOptions m = new ConnectionOptions();
        for (ConnectionOptions o : chain) {
            m.passwordFile = first(m.passwordFile, o.passwordFile);
            m.probeLockName = first(m.probeLockName, o.probeLockName);
            m.trustedCertificates = first(m.trustedCertificates, o.trustedCertificates);
            m.trustStore = first(m.trustStore, o.trustStore);
            m.keyStore = first(m.keyStore, o.keyStore);
            m.verify = first(m.verify, o.verify);
        }
        return m;
    }

    /** @return whether any of these options was given */
    boolean isAnySet() {
        return passwordFile != null || probeLockName != null || trustedCertificates != null || trustStore != null
                || keyStore != null || verify != null;
    }

    private static <T> T first(T current, T candidate) {
        return current != null ? current : candidate;
    }

    /** @return whether a password is given apart from the URI: {@code --password-file} or {@code $DLOCK_PASSWORD} */
    boolean givesPassword(Map<String, String> env) {
        String fromEnv = env.get(PASSWORD_ENV);
        return passwordFile != null || (fromEnv != null && !fromEnv.isEmpty());
    }

    /**
     * @param uri the URI to connect to, checked ({@link RedisUris})
     * @param env the environment ({@code $DLOCK_PASSWORD}, the store passwords)
     * @return {@code uri} with the password of {@code --password-file} or {@code $DLOCK_PASSWORD}, if one is given
     * @throws CliException (usage) when the file cannot be read, or the URI carries a password too
     */
    String uriWithPassword(String uri, Map<String, String> env) {
        String password;
        String source;
        if (passwordFile != null) {
            source = "--password-file";
            try {
                String text = Files.readString(passwordFile, StandardCharsets.UTF_8);
                int end = text.indexOf('\n');
                password = (end < 0 ? text : text.substring(0, end)).replaceFirst("\r$", "");
            } catch (IOException | RuntimeException e) {
                throw CliException.usage("--password-file: cannot read " + passwordFile + ": " + e.getMessage());
            }
        } else {
            source = "$" + PASSWORD_ENV;
            password = env.get(PASSWORD_ENV);
        }
        if (password == null || password.isEmpty()) {
            if (passwordFile != null) {
                throw CliException.usage("--password-file: " + passwordFile + " holds no password on its first line");
            }
            return uri;
        }
        String encoded = RedisUris.percentEncode(password);
        Secrets.registerPassword(encoded);
        return RedisUris.withPassword(uri, encoded, source);
    }

    /** Applies the probe lock name and the TLS options to {@code builder}. */
    LockClientConfig.Builder apply(LockClientConfig.Builder builder, Function<String, String> env) {
        if (probeLockName != null) {
            builder.tuning(TuningSettings.builder().probeLockName(probeLockName).build());
        }
        if (trustedCertificates == null && trustStore == null && keyStore == null && verify == null) {
            return builder;
        }
        TlsSettings.Builder tls = TlsSettings.builder();
        if (trustedCertificates != null) {
            tls.trustedCertificates(trustedCertificates);
        }
        if (trustStore != null) {
            tls.trustStore(trustStore, chars(env.apply(TRUST_STORE_PASSWORD_ENV)));
        }
        if (keyStore != null) {
            tls.keyStore(keyStore, chars(env.apply(KEY_STORE_PASSWORD_ENV)));
        }
        if (verify != null) {
            tls.verification(verify);
        }
        return builder.tls(tls.build());
    }

    private static char[] chars(String password) {
        return password == null ? null : password.toCharArray();
    }
}
