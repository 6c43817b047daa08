package io.dlock.spring.boot.actuate;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.TuningSettings;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.spring.boot.autoconfigure.LockClientConfigCustomizer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code dlock} health over HTTP judges the client it checks, by that client's own settings, and answers within
 * its own bound while Redis hangs (issue 20, point 10).
 */
@ExtendWith(RedisExtension.class)
class DlockHealthIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /**
     * A client customised in code: a 6 s watchdog (the properties say 30 s, by which every hold of this client would
     * look "behind": less than 10 s left) and a probe lock name of its own.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class CustomisedApp {
        @Bean
        LockClientConfigCustomizer shortWatchdogAndOwnProbe() {
            return b -> b.watchdogTimeout(Duration.ofSeconds(6)).commandTimeout(Duration.ofMillis(1500))
                    .tuning(TuningSettings.builder().probeLockName("lock:probe").build());
        }
    }

    private static ConfigurableApplicationContext start(Class<?> app, String redisUri, String... more) {
        return new SpringApplicationBuilder(app).web(WebApplicationType.SERVLET)
                .properties("server.port=0", "server.address=127.0.0.1",
                        "management.endpoints.web.exposure.include=health",
                        "management.endpoint.health.show-details=always", "dlock.redis-uri=" + redisUri)
                .properties(more)
                .run();
    }

    /**
     * Redis paused (SIGSTOP) with a 10 s command timeout: the health answers DOWN within its own bound (1 s, plus
     * the HTTP round trip), every time it is asked, and UP again once Redis answers.
     */
    @Test
    void answersDownWithinItsBoundWhileRedisHangs(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext app = start(App.class, redis.uri(), "dlock.watchdog-timeout=60s",
                "dlock.command-timeout=10s")) {
            assertThat(status(app)).isEqualTo("UP");
            redis.pause();
            try {
                for (int i = 0; i < 3; i++) {
                    long start = System.nanoTime();
                    HttpResponse<String> response = fetch(app, "/actuator/health/dlock");
                    long tookMs = (System.nanoTime() - start) / 1_000_000;
                    assertThat(tookMs).as("answered within its 1 s bound (plus HTTP on a loaded machine), not the 10 s "
                            + "command timeout").isLessThan(5_000);
                    assertThat(response.statusCode()).isEqualTo(503);
                    JsonNode health = JSON.readTree(response.body());
                    assertThat(health.get("status").asString()).isEqualTo("DOWN");
                    assertThat(health.get("details").get("redis").asString()).isEqualTo("not answering");
                }
            } finally {
                redis.resume();
            }
            Await.until(Duration.ofSeconds(30), () -> "UP".equals(status(app)), "health UP again");
        }
    }

    /**
     * The application's customizer shortens the watchdog to 6 s and names its own probe lock; the Redis user may
     * touch only locks named {@code lock:*}. A hold renewed normally keeps the health UP (judged by the 30 s of the
     * properties it would be "behind" at once), and the probe reads {@code lock:probe} (the default
     * {@code dlock-probe} would be refused: DOWN).
     */
    @Test
    void judgesTheClientByItsOwnSettings(RedisServer redis) throws Exception {
        aclUserForLockPrefix(redis);
        String uri = "redis://app:app-pw@127.0.0.1:" + redis.port();
        try (ConfigurableApplicationContext app = start(CustomisedApp.class, uri)) {
            LockClient client = app.getBean(LockClient.class);
            assertThat(client.config().watchdogTimeout()).isEqualTo(Duration.ofSeconds(6));
            assertThatThrownBy(() -> client.inspect("dlock-probe")).as("the default probe name would be refused")
                    .isInstanceOf(io.dlock.LockException.class);
            DistributedLock lock = client.getLock("lock:job");
            lock.lock();
            try {
                long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                List<String> seen = new ArrayList<>();
                while (System.nanoTime() - end < 0) {
                    JsonNode health = JSON.readTree(fetch(app, "/actuator/health/dlock").body());
                    seen.add(health.get("status").asString() + " " + health.get("details").get("renewals"));
                    Thread.sleep(100);
                }
                assertThat(seen).isNotEmpty().allSatisfy(s -> assertThat(s).isEqualTo("UP \"ok\""));
                assertThat(lock.leaseValidFor()).as("renewed all along").isPositive();
            } finally {
                lock.unlock();
            }
        }
    }

    /** An ACL user that may use only the locks named {@code lock:*} (the README's least rule). */
    private static void aclUserForLockPrefix(RedisServer redis) {
        List<String> rule = new ArrayList<>(List.of("reset", "resetchannels", "on", ">app-pw",
                "~lock:*", "~{lock:*", "~redisson_lock_queue:{lock:*", "~redisson_lock_queue:lock:*",
                "~redisson_lock_timeout:{lock:*", "~redisson_lock_timeout:lock:*", "~redisson_lock_token:{lock:*",
                "~redisson_lock_token:lock:*", "~dlock_rwlock_writers:{lock:*", "~dlock_rwlock_writers:lock:*",
                "&redisson_lock__channel:{lock:*", "&redisson_lock__channel:lock:*", "&redisson_rwlock:{lock:*",
                "&redisson_rwlock:lock:*", "+evalsha", "+eval", "+info", "+ping", "+publish", "+subscribe",
                "+unsubscribe", "+wait", "+exists", "+type", "+del", "+pexpire", "+pttl", "+time", "+get", "+set",
                "+incrby", "+hget", "+hset", "+hdel", "+hexists", "+hincrby", "+hgetall", "+hlen", "+lindex", "+lpop",
                "+lpos", "+rpush", "+lrem", "+lrange", "+zadd", "+zrem", "+zscore", "+zincrby", "+zrange",
                "+zremrangebyscore", "+zcard"));
        RedisClient lettuce = RedisClient.create(RedisURI.create(redis.uri()));
        try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
            CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add("app");
            rule.forEach(args::add);
            assertThat(connection.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args))
                    .isEqualTo("OK");
        } finally {
            lettuce.shutdown();
        }
    }

    private String status(ConfigurableApplicationContext app) {
        try {
            return JSON.readTree(fetch(app, "/actuator/health/dlock").body()).get("status").asString();
        } catch (Exception e) {
            return "?";
        }
    }

    private HttpResponse<String> fetch(ConfigurableApplicationContext app, String path) throws Exception {
        String port = app.getEnvironment().getProperty("local.server.port");
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
