package io.dlock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads {@code INFO commandstats} (calls per command, script-internal commands included) and {@code INFO cpu} (the
 * server process's CPU time) over its own connection.
 */
final class RedisStats implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final Map<String, Boolean> noscript = new ConcurrentHashMap<>();

    RedisStats(String uri) {
        client = RedisClient.create(uri);
        connection = client.connect();
    }

    /** Calls per command since the server started or the last reset. */
    Map<String, Long> calls() {
        Map<String, Long> calls = new HashMap<>();
        for (String line : connection.sync().info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            String rest = line.substring(line.indexOf("calls=") + 6);
            calls.put(command, Long.parseLong(rest.substring(0, rest.indexOf(','))));
        }
        return calls;
    }

    /**
     * CPU time the server process has used since it started, user plus system, in nanoseconds ({@code INFO cpu}'s
     * {@code used_cpu_user} and {@code used_cpu_sys}: every thread of the process, I/O threads included). Redis
     * reports it in microseconds; the INFO calls of this class add a few microseconds per snapshot.
     */
    long cpuNanos() {
        double seconds = 0;
        for (String line : connection.sync().info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return Math.round(seconds * 1e9);
    }

    /** Calls per command between two snapshots, leaving out the INFO this class itself sends. */
    static Map<String, Long> deltas(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> deltas = new HashMap<>();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            if (!e.getKey().equals("info")) {
                deltas.put(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L));
            }
        }
        return deltas;
    }

    /**
     * Whether Redis forbids {@code command} (a commandstats name such as {@code evalsha} or {@code client|setname})
     * in scripts: its {@code noscript} flag in {@code COMMAND INFO}. Asked once per name; the COMMAND INFO calls are
     * counted by commandstats, so call this only outside a measured window.
     */
    boolean noscript(String command) {
        return noscript.computeIfAbsent(command, c -> {
            List<Object> info = connection.sync().commandInfo(c);
            return !info.isEmpty() && info.get(0) instanceof List<?> entry && entry.size() > 2
                    && entry.get(2) instanceof Collection<?> flags && flags.stream().anyMatch("noscript"::equals);
        });
    }

    /** Calls of one command between two snapshots. */
    static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }

    String get(String key) {
        return connection.sync().get(key);
    }

    /** @return how many of {@code keys} exist (one {@code EXISTS} command, counted by commandstats) */
    long exists(String... keys) {
        return connection.sync().exists(keys);
    }

    void flushAll() {
        connection.sync().flushall();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
