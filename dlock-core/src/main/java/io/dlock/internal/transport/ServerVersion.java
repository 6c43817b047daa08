package io.dlock.internal.transport;

import java.util.Optional;

/**
 * A Redis server's version as {@code INFO server} reports it ({@code redis_version:7.0.15}), and the oldest one dlock
 * supports.
 *
 * <h2>Why 6.2</h2>
 * The scripts need {@code LPOS} (6.0.6) and effects replication of scripts that read {@code TIME} (5.0); ACL users need
 * 6.0. 6.2 is the oldest line the test suite runs on (the embedded binary of the test kit), so it is the oldest one
 * dlock accepts. Sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}) is 7.0+: on older clusters dlock uses plain
 * pub/sub only (see {@link ClusterTransport}). Servers that speak the protocol and report a compatible
 * {@code redis_version} pass the same check: Valkey keeps that field at the Redis line whose commands it speaks (7.2.4
 * for Valkey 8.x) and reports its own version in {@code valkey_version}, so the check, which is about commands, reads
 * {@code redis_version} on every server; {@link #serverName(String)} names the server for messages.
 */
public record ServerVersion(int major, int minor, int patch) implements Comparable<ServerVersion> {

    /** The oldest Redis dlock supports: {@value #MINIMUM_TEXT}. */
    public static final String MINIMUM_TEXT = "6.2.0";
    public static final ServerVersion MINIMUM = new ServerVersion(6, 2, 0);

    /**
     * The {@code redis_version} field of an {@code INFO} reply.
     *
     * @return empty when the reply has no such field, or it is not {@code MAJOR.MINOR[.PATCH…]} numbers
     */
    public static Optional<ServerVersion> fromInfo(String info) {
        String version = field(info, "redis_version");
        return version == null ? Optional.empty() : parse(version);
    }

    /**
     * The server's own name and version for messages and logs, from an {@code INFO server} reply:
     * {@code "Valkey 8.1.1 (redis_version 7.2.4)"} when it says {@code server_name:valkey}, else
     * {@code "Redis 7.0.15"}; {@code "Redis (version unknown)"} when the reply has neither.
     */
    public static String serverName(String info) {
        String redis = field(info, "redis_version");
        if ("valkey".equalsIgnoreCase(field(info, "server_name"))) {
            String own = field(info, "valkey_version");
            return "Valkey " + (own == null ? "(version unknown)" : own)
                    + (redis == null ? "" : " (redis_version " + redis + ")");
        }
        return "Redis " + (redis == null ? "(version unknown)" : redis);
    }

    private static String field(String info, String name) {
        if (info == null) {
            return null;
        }
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    /** @return {@code MAJOR.MINOR[.PATCH]} (extra parts and suffixes ignored), or empty if it is not that */
    public static Optional<ServerVersion> parse(String text) {
        String[] parts = text.split("\\.");
        if (parts.length < 2) {
            return Optional.empty();
        }
        int[] numbers = new int[3];
        for (int i = 0; i < Math.min(3, parts.length); i++) {
            String digits = parts[i].replaceFirst("^(\\d+).*$", "$1");
            if (digits.isEmpty() || !Character.isDigit(digits.charAt(0)) || digits.length() > 6) {
                return Optional.empty();
            }
            numbers[i] = Integer.parseInt(digits);
        }
        return Optional.of(new ServerVersion(numbers[0], numbers[1], numbers[2]));
    }

    /** @return whether dlock supports this version */
    public boolean isSupported() {
        return compareTo(MINIMUM) >= 0;
    }

    @Override
    public int compareTo(ServerVersion other) {
        int c = Integer.compare(major, other.major);
        if (c == 0) {
            c = Integer.compare(minor, other.minor);
        }
        return c != 0 ? c : Integer.compare(patch, other.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
