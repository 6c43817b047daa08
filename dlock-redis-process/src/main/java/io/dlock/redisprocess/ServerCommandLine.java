package io.dlock.redisprocess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command line of a {@link RedisServer}: {@code redis-server [<sentinel.conf> --sentinel] --bind 127.0.0.1
 * --port P (or --port 0 --tls-port P --tls-…) --save '' --appendonly no [--protected-mode no] --daemonize no
 * --dir <dir> --logfile <dir>/redis.log}, then the caller's own {@code --key value} pairs.
 */
final class ServerCommandLine {
    /** Directives that {@link RedisServer} sets itself and a caller may not override. */
    private static final Set<String> MANAGED_OPTIONS = Set.of("bind", "port", "dir", "logfile", "daemonize");

    private ServerCommandLine() {
    }

    /**
     * @param key a {@code redis.conf} directive, with or without leading {@code --}
     * @return the directive without dashes or surrounding blanks
     * @throws IllegalArgumentException for a blank key, or one that {@link RedisServer} sets itself
     */
    static String directive(String key) {
        String k = key.strip();
        while (k.startsWith("-")) {
            k = k.substring(1);
        }
        if (k.isEmpty()) {
            throw new IllegalArgumentException("blank config key: '" + key + "'");
        }
        if (MANAGED_OPTIONS.contains(k.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("'" + k + "' is set by RedisServer itself"
                    + (k.equalsIgnoreCase("port") ? "; use port(int)" : ""));
        }
        return k;
    }

    /**
     * The command for one start on {@code port} in directory {@code dir}. For a Sentinel, writes
     * {@code dir/sentinel.conf} first unless it exists (Sentinel rewrites its file with what it learns, and a restart
     * keeps what the last run wrote).
     *
     * @param sentinelConfig the initial {@code sentinel.conf}, or null for a data server
     * @param tls the certificates of a TLS-only server, or null
     * @param tlsClientAuth what TLS clients must present; ignored when {@code tls} is null
     * @param extraArgs {@code --key value} pairs appended at the end, so they override the defaults above
     */
    static List<String> build(Path binary, String sentinelConfig, TlsCertificates tls,
                              RedisServer.ClientAuth tlsClientAuth, int port, Path dir, List<String> extraArgs) {
        List<String> cmd = new ArrayList<>(List.of(binary.toString()));
        if (sentinelConfig != null) {
            Path conf = dir.resolve("sentinel.conf").toAbsolutePath();
            try {
                if (!Files.exists(conf)) {
                    Files.writeString(conf, sentinelConfig, StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + conf, e);
            }
            cmd.add(conf.toString());
            cmd.add("--sentinel");
        }
        cmd.addAll(List.of("--bind", RedisServer.HOST));
        if (tls != null) {
            cmd.addAll(List.of(
                    "--port", "0",
                    "--tls-port", Integer.toString(port),
                    "--tls-cert-file", tls.serverCertificate().toAbsolutePath().toString(),
                    "--tls-key-file", tls.serverKey().toAbsolutePath().toString(),
                    "--tls-ca-cert-file", tls.caCertificate().toAbsolutePath().toString(),
                    "--tls-auth-clients", tlsClientAuth.name().toLowerCase(Locale.ROOT),
                    // replicas, Sentinels (and, with tls-cluster, the cluster bus) reach their peers over TLS too
                    "--tls-replication", "yes"));
        } else {
            cmd.addAll(List.of("--port", Integer.toString(port)));
        }
        cmd.addAll(List.of(
                "--save", "",
                "--appendonly", "no"));
        if (RedisBinary.hasProtectedMode(binary)) {
            cmd.addAll(List.of("--protected-mode", "no"));
        }
        cmd.addAll(List.of(
                "--daemonize", "no",
                "--dir", dir.toAbsolutePath().toString(),
                "--logfile", dir.resolve(ServerFiles.LOG_FILE).toAbsolutePath().toString()));
        cmd.addAll(extraArgs);
        return cmd;
    }
}
