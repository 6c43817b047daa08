package io.dlock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.util.HashMap;
import java.util.Map;

/** Reads {@code INFO commandstats} (calls per command, script-internal commands included) over its own connection. */
final class RedisStats implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

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

    /** Total calls between two snapshots, leaving out the commands this class itself sends. */
    static long delta(Map<String, Long> before, Map<String, Long> after) {
        long total = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            if (e.getKey().equals("info")) {
                continue;
            }
            total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return total;
    }

    /** Calls of one command between two snapshots. */
    static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }

    String get(String key) {
        return connection.sync().get(key);
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
