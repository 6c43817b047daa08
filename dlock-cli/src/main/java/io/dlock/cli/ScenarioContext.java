package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.redisprocess.Await;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * What a scenario of the demo works with: the demo's Redis, the lock clients and child JVMs it creates, and the
 * report it tells its story to. The clients and children are closed and stopped when the scenario ends (or by the
 * shutdown hook, from another thread), so a scenario need not clean up after itself.
 */
final class ScenarioContext {
    private final DemoRedis redis;
    private final DemoReport report;
    private final List<Process> children = new CopyOnWriteArrayList<>();
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    ScenarioContext(DemoRedis redis, DemoReport report) {
        this.redis = redis;
        this.report = report;
    }

    String uri() {
        return redis.uri();
    }

    /** The demo's key (or lock name) for {@code name}. */
    String key(String name) {
        return redis.key(name);
    }

    /** A plain connection, for keys that are not locks; the caller closes it. */
    StatefulRedisConnection<String, String> connect() {
        return redis.connect();
    }

    /** @param watchdog the watchdog lease, or null for the default */
    LockClient newClient(Duration watchdog) {
        LockClientConfig.Builder b = LockClientConfig.builder().redisUri(redis.uri());
        if (watchdog != null) {
            b.watchdogTimeout(watchdog);
        }
        LockClient client = LockClient.create(b.build());
        clients.add(client);
        return client;
    }

    /** A child JVM running {@code DemoWorker args}. */
    DemoChild startChild(String... args) throws IOException {
        Process process = DemoChild.launch(args);
        children.add(process);
        return new DemoChild(process);
    }

    void say(String line) {
        report.say(line);
    }

    void check(String what, boolean ok) {
        report.check(what, ok);
    }

    /** @return whether {@code condition} stayed true, checked every 10 ms, for {@code duration} */
    static boolean holdsFor(Await.Condition condition, Duration duration) {
        try {
            Await.during(duration, condition, "condition holds");
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    void closeClients() {
        for (LockClient client : clients) {
            client.close();
        }
        clients.clear();
    }

    /** SIGKILL to every child JVM, then waits for each (up to 5 s). */
    void stopChildren() {
        for (Process p : children) {
            p.destroyForcibly();
        }
        for (Process p : children) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        children.clear();
    }
}
