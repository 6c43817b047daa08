package io.dlock.spring.boot.actuate;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.FencedLock;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.spring.LeaderElections;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code dlock} endpoint, the health indicator and the meters, over HTTP in a real web application. */
@ExtendWith(RedisExtension.class)
class DlockActuatorIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    private static ConfigurableApplicationContext start(RedisServer redis, String... more) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
                .properties("server.port=0", "server.address=127.0.0.1",
                        "management.endpoints.web.exposure.include=health,dlock,metrics",
                        "management.endpoint.health.show-details=always",
                        "dlock.redis-uri=" + redis.uri(), "dlock.watchdog-timeout=3s")
                .properties(more)
                .run();
    }

    @Test
    void listsTheLocksThisApplicationHoldsAndInspectsOne(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext app = start(redis)) {
            LockClient client = app.getBean(LockClient.class);
            DistributedLock plain = client.getLock("orders:42");
            DistributedLock fair = client.getFairLock("reports");
            FencedLock fenced = client.getFencedLock("ledger");
            DistributedReadWriteLock rw = client.getReadWriteLock("catalog");
            DistributedLock read = client.getReadWriteLock("prices").readLock();
            plain.lock();
            plain.lock();
            fair.lock(Duration.ofMinutes(1));
            long token = fenced.lockAndGetToken();
            rw.writeLock().lock();
            read.lock();
            try {
                JsonNode list = get(app, "/actuator/dlock");
                assertThat(list.get("clientId").asString()).isEqualTo(client.getId());
                List<String> rows = new ArrayList<>();
                for (JsonNode lock : list.get("locks")) {
                    rows.add(lock.get("name").asString() + " " + lock.get("kind").asString() + " "
                            + lock.get("holdCount").asInt() + " " + lock.get("renewedByWatchdog").asBoolean());
                    assertThat(lock.get("ownerId").asLong()).isEqualTo(Thread.currentThread().getId());
                    assertThat(Duration.parse(lock.get("leaseValidFor").asString())).isPositive();
                    assertThat(lock.get("leaseValidForMillis").asLong()).isPositive();
                }
                assertThat(rows).containsExactly("catalog WRITE 1 true", "ledger FENCED 1 true",
                        "orders:42 PLAIN 2 true", "prices READ 1 true", "reports FAIR 1 false");

                JsonNode one = get(app, "/actuator/dlock/orders:42");
                assertThat(one.get("type").asString()).isEqualTo("LOCK");
                assertThat(one.get("ttlMillis").asLong()).isPositive();
                JsonNode holder = one.get("holders").get(0);
                assertThat(holder.get("clientId").asString()).isEqualTo(client.getId());
                assertThat(holder.get("holdCount").asInt()).isEqualTo(2);
                assertThat(holder.get("thisApplication").asBoolean()).isTrue();
                // who holds: the client's card (issue 44 #5)
                assertThat(holder.get("identity").get("host").asString()).isEqualTo(client.identity().host());
                assertThat(holder.get("identity").get("pid").asLong()).isEqualTo(client.identity().pid());
                // no hold record unless dlock.hold-details=true
                assertThat(holder.get("since").isNull()).isTrue();
                assertThat(holder.get("thread").isNull()).isTrue();
                assertThat(get(app, "/actuator/dlock/ledger").get("fencingToken").asLong()).isEqualTo(token);
                assertThat(get(app, "/actuator/dlock/catalog").get("mode").asString()).isEqualTo("WRITE");
                assertThat(get(app, "/actuator/dlock/nothing-here").get("type").asString()).isEqualTo("NONE");
            } finally {
                read.unlock();
                rw.writeLock().unlock();
                fenced.unlock();
                fair.unlock();
                plain.unlock();
                plain.unlock();
            }
            assertThat(get(app, "/actuator/dlock").get("locks")).isEmpty();
            assertThat(get(app, "/actuator/metrics/dlock.acquire").get("name").asString())
                    .isEqualTo("dlock.acquire");
            // one set of tag keys per meter name (Prometheus refuses others): no observation timer beside dlock's
            assertThat(app.getBean(io.micrometer.core.instrument.MeterRegistry.class).find("dlock.acquire").meters())
                    .isNotEmpty().allSatisfy(m -> assertThat(m.getId().getTag("error")).isNull());
        }
    }

    @Test
    void withHoldDetailsAPlainHolderShowsSinceWhenAndItsThread(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext app = start(redis, "dlock.hold-details=true")) {
            DistributedLock plain = app.getBean(LockClient.class).getLock("orders:44");
            plain.lock();
            try {
                JsonNode holder = get(app, "/actuator/dlock/orders:44").get("holders").get(0);
                assertThat(holder.get("thread").asString()).isEqualTo(Thread.currentThread().getName());
                assertThat(java.time.Instant.parse(holder.get("since").asString()))
                        .isBetween(java.time.Instant.now().minusSeconds(60), java.time.Instant.now().plusSeconds(1));
            } finally {
                plain.unlock();
            }
        }
    }

    /**
     * The elections of {@code dlock.leader.elections.*}, as each of two applications sees them: the leader with its
     * term's epoch, start and time left, the other a candidate, an election not auto-started stopped.
     */
    @Test
    void listsTheElectionsThisApplicationRunsWithTheirState(RedisServer redis) throws Exception {
        String[] elections = {"dlock.leader.elections.billing.lease=1500ms",
                "dlock.leader.elections.billing.renew-deadline=1s", "dlock.leader.elections.billing.retry-period=200ms",
                "dlock.leader.elections.paused.auto-start=false"};
        try (ConfigurableApplicationContext a = start(redis, elections);
             ConfigurableApplicationContext b = start(redis, elections)) {
            Await.until(Duration.ofSeconds(10), () -> leads(a) || leads(b), "a leader of billing");
            ConfigurableApplicationContext leader = leads(a) ? a : b;
            ConfigurableApplicationContext other = leader == a ? b : a;
            LeaderTerm term = leader.getBean(LeaderElections.class).election("billing").orElseThrow().currentTerm()
                    .orElseThrow();

            JsonNode led = get(leader, "/actuator/dlock").get("elections");
            assertThat(led).hasSize(2);
            assertThat(led.get(0).get("name").asString()).isEqualTo("billing");
            assertThat(led.get(0).get("state").asString()).isEqualTo("LEADER");
            assertThat(led.get(0).get("epoch").asLong()).isEqualTo(term.epoch());
            assertThat(led.get(0).get("since").asString()).isEqualTo(term.since().toString());
            assertThat(Duration.parse(led.get(0).get("validFor").asString())).isPositive()
                    .isLessThanOrEqualTo(Duration.ofMillis(1500));
            assertThat(led.get(0).get("validForMillis").asLong()).isBetween(1L, 1500L);
            assertThat(led.get(1).get("name").asString()).isEqualTo("paused");
            assertThat(led.get(1).get("state").asString()).isEqualTo("STOPPED");
            assertThat(absent(led.get(1), "epoch")).isTrue();

            JsonNode candidate = get(other, "/actuator/dlock").get("elections");
            assertThat(candidate.get(0).get("state").asString()).isEqualTo("CANDIDATE");
            assertThat(absent(candidate.get(0), "epoch")).isTrue();
            assertThat(absent(candidate.get(0), "validFor")).isTrue();
            assertThat(candidate.get(1).get("state").asString()).isEqualTo("STOPPED");
        }
    }

    private static boolean leads(ConfigurableApplicationContext app) {
        return app.getBean(LeaderElections.class).election("billing").orElseThrow().isLeader();
    }

    private static boolean absent(JsonNode node, String field) {
        return node.get(field) == null || node.get(field).isNull();
    }

    /**
     * A key that is not a lock (a string, a hash of business data) is reported as such with HTTP 200, never with its
     * fields or values; the endpoint used to answer 500 for a string and list any hash's fields and numbers.
     */
    @Test
    void aKeyThatIsNotALockIsReportedAsNotALockWithoutItsContents(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext app = start(redis);
             RawConnection raw = new RawConnection(redis.uri())) {
            raw.redis.sync().hset("cart:42", Map.of("sku-1", "2", "owner", "alice"));
            raw.redis.sync().set("a-string", "precious");
            for (String name : List.of("cart:42", "a-string")) {
                HttpResponse<String> response = fetch(app, "/actuator/dlock/" + name);
                assertThat(response.statusCode()).as(name + ": " + response.body()).isEqualTo(200);
                JsonNode body = JSON.readTree(response.body());
                assertThat(body.get("name").asString()).isEqualTo(name);
                assertThat(body.get("type").asString()).isEqualTo("NOT_A_LOCK");
                assertThat(body.get("message").asString()).contains("'" + name + "'").contains("not a lock");
                assertThat(response.body()).doesNotContain("sku-1").doesNotContain("alice").doesNotContain("owner")
                        .doesNotContain("precious");
            }
            assertThat(raw.redis.sync().hgetall("cart:42")).isEqualTo(Map.of("sku-1", "2", "owner", "alice"));

            HttpResponse<String> blank = fetch(app, "/actuator/dlock/%20");
            assertThat(blank.statusCode()).as(blank.body()).isEqualTo(400);
            assertThat(JSON.readTree(blank.body()).get("error").asString()).isEqualTo("INVALID_NAME");
        }
    }

    /**
     * A name the application's Redis user may not read (ACL): HTTP 403 with dlock's message (it used to be a bare
     * 500); the endpoint still answers for the names the user may read.
     */
    @Test
    void aNameTheRedisAclForbidsIsForbiddenWithDlocksMessage(RedisServer redis) throws Exception {
        try (RawConnection raw = new RawConnection(redis.uri())) {
            raw.redis.sync().aclSetuser("app", AclSetuserArgs.Builder.on().addPassword("s3cret-pw")
                    .keyPattern("lock:*").keyPattern("redisson_lock_*{lock:*").allChannels().allCommands());
        }
        String uri = "redis://app:s3cret-pw@127.0.0.1:" + redis.port();
        try (ConfigurableApplicationContext app = start(redis, "dlock.redis-uri=" + uri,
                "dlock.tuning.probe-lock-name=lock:probe")) {
            HttpResponse<String> forbidden = fetch(app, "/actuator/dlock/payments:7");
            assertThat(forbidden.statusCode()).as(forbidden.body()).isEqualTo(403);
            JsonNode body = JSON.readTree(forbidden.body());
            assertThat(body.get("name").asString()).isEqualTo("payments:7");
            assertThat(body.get("error").asString()).isEqualTo("REDIS_PERMISSION_DENIED");
            assertThat(body.get("message").asString()).contains("'payments:7'").contains("NOPERM");
            assertThat(forbidden.body()).doesNotContain("s3cret-pw");

            assertThat(get(app, "/actuator/dlock/lock:free").get("type").asString()).isEqualTo("NONE");
        }
    }

    /** Redis not answering: HTTP 503 with dlock's message, not a bare 500. */
    @Test
    void redisNotAnsweringIsServiceUnavailableWithDlocksMessage(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext app = start(redis, "dlock.command-timeout=500ms")) {
            redis.pause();
            try {
                HttpResponse<String> response = fetch(app, "/actuator/dlock/orders:1");
                assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
                JsonNode body = JSON.readTree(response.body());
                assertThat(body.get("error").asString()).isEqualTo("REDIS_UNAVAILABLE");
                assertThat(body.get("message").asString()).contains("'orders:1'");
            } finally {
                redis.resume();
            }
        }
    }

    /** A plain Lettuce connection of the test's own, to set up keys and users. */
    private static final class RawConnection implements AutoCloseable {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> redis;

        RawConnection(String uri) {
            client = RedisClient.create(uri);
            redis = client.connect();
        }

        @Override
        public void close() {
            redis.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    @Test
    void healthIsDownWhileRedisDoesNotAnswer(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext app = start(redis, "dlock.command-timeout=900ms")) {
            JsonNode health = get(app, "/actuator/health/dlock");
            assertThat(health.get("status").asString()).isEqualTo("UP");
            assertThat(health.get("details").get("redis").asString()).isEqualTo("reachable");
            assertThat(health.get("details").get("renewals").asString()).isEqualTo("ok");
            redis.pause();
            try {
                Await.until(Duration.ofSeconds(30), () -> "DOWN".equals(status(app, "/actuator/health/dlock")),
                        "health DOWN");
                JsonNode down = JSON.readTree(fetch(app, "/actuator/health/dlock").body());
                // the 900 ms command timeout or the health check's own 1 s bound, whichever ends the wait first
                assertThat(down.get("details").get("redis").asString()).isIn("unreachable", "not answering");
            } finally {
                redis.resume();
            }
            Await.until(Duration.ofSeconds(30), () -> "UP".equals(status(app, "/actuator/health/dlock")),
                    "health UP again");
        }
    }

    private String status(ConfigurableApplicationContext app, String path) {
        try {
            return JSON.readTree(fetch(app, path).body()).get("status").asString();
        } catch (Exception e) {
            return "?";
        }
    }

    private JsonNode get(ConfigurableApplicationContext app, String path) throws Exception {
        HttpResponse<String> response = fetch(app, path);
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> fetch(ConfigurableApplicationContext app, String path) throws Exception {
        String port = app.getEnvironment().getProperty("local.server.port");
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
