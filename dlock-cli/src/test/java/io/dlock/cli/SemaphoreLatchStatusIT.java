package io.dlock.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Map;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code dlock status} and {@code dlock watch} of semaphores and count-down latches. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class SemaphoreLatchStatusIT {
    private final ObjectMapper mapper = new ObjectMapper();

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    @Test
    void aLeasedSemaphoreWithPermitsOutIsShownWithoutBeingAsked(RedisServer redis, LockClient client)
            throws Exception {
        LeasedSemaphore sem = client.getLeasedSemaphore("sem:exports");
        sem.trySetPermits(3);
        Permit watchdog = sem.acquire();
        Permit fixed = sem.acquire(Duration.ofSeconds(20));

        DlockProcess text = DlockProcess.run("status", "--redis", redis.uri(), "sem:exports");
        assertThat(text.exitCode()).as(text.describe()).isZero();
        assertThat(text.stdout()).startsWith("sem:exports\n  state    semaphore, 1 permit available, 2 leased\n"
                + "  permit   " + fixed.id() + "  lease ")
                .contains("\n  permit   " + watchdog.id() + "  lease ")
                .endsWith("  ttl      no expiry\n");

        DlockProcess json = DlockProcess.run("status", "--redis", redis.uri(), "--json", "sem:exports");
        assertThat(json.exitCode()).as(json.describe()).isZero();
        JsonNode node = mapper.readTree(json.stdout()).get(0);
        assertThat(node.get("name").asText()).isEqualTo("sem:exports");
        assertThat(node.get("type").asText()).isEqualTo("semaphore");
        assertThat(node.get("set").asBoolean()).isTrue();
        assertThat(node.get("available").asLong()).isEqualTo(1);
        assertThat(node.get("leased").asInt()).isEqualTo(2);
        assertThat(node.get("expired").asInt()).isZero();
        assertThat(node.get("ttlMillis").asLong()).isEqualTo(-1);
        assertThat(node.get("permits")).hasSize(2);
        assertThat(node.get("permits").get(0).get("id").asText()).isEqualTo(fixed.id());
        assertThat(node.get("permits").get(0).get("leaseMillis").asLong()).isBetween(1L, 20_000L);
        assertThat(node.get("permits").get(1).get("id").asText()).isEqualTo(watchdog.id());
        assertThat(node.get("permits").get(1).get("leaseMillis").asLong()).isBetween(20_000L, 30_000L);
        watchdog.release();
        fixed.release();
    }

    @Test
    void aBareCountIsShownAsSuchUntilTheKindIsGiven(RedisServer redis, LockClient client) throws Exception {
        DistributedSemaphore sem = client.getSemaphore("sem:plain");
        sem.trySetPermits(4, Duration.ofMinutes(5));
        sem.acquire();
        DistributedCountDownLatch latch = client.getCountDownLatch("batch:done");
        latch.trySetCount(3);
        latch.countDown();

        DlockProcess auto = DlockProcess.run("status", "--redis", redis.uri(), "--json", "sem:plain", "batch:done");
        assertThat(auto.exitCode()).as(auto.describe()).isZero();
        JsonNode both = mapper.readTree(auto.stdout());
        assertThat(both.get(0).get("type").asText()).isEqualTo("semaphore_or_latch");
        assertThat(both.get(0).get("count").asLong()).isEqualTo(3);
        assertThat(both.get(0).get("ttlMillis").asLong()).isBetween(1L, 300_000L);
        assertThat(both.get(1).get("type").asText()).isEqualTo("semaphore_or_latch");
        assertThat(both.get(1).get("count").asLong()).isEqualTo(2);
        DlockProcess autoText = DlockProcess.run("status", "--redis", redis.uri(), "batch:done");
        assertThat(autoText.stdout()).isEqualTo("batch:done\n  state    count 2: a semaphore's available permits or "
                + "a count-down latch's count; --semaphore or --latch reads it as one\n  ttl      no expiry\n");

        DlockProcess asSemaphore = DlockProcess.run("status", "--redis", redis.uri(), "--semaphore", "sem:plain",
                "sem:never-set");
        assertThat(asSemaphore.exitCode()).as(asSemaphore.describe()).isZero();
        assertThat(asSemaphore.stdout()).startsWith("sem:plain\n  state    semaphore, 3 permits available, 0 leased\n"
                + "  ttl      ").endsWith("\nsem:never-set\n  state    semaphore, not set (no permits)\n");

        DlockProcess asLatch = DlockProcess.run("status", "--redis", redis.uri(), "--latch", "batch:done",
                "batch:never-set");
        assertThat(asLatch.exitCode()).as(asLatch.describe()).isZero();
        assertThat(asLatch.stdout()).isEqualTo("batch:done\n  state    count-down latch, closed: count 2\n"
                + "  ttl      no expiry\n\nbatch:never-set\n  state    count-down latch, open\n");
        DlockProcess latchJson = DlockProcess.run("status", "--redis", redis.uri(), "--latch", "--json",
                "batch:done");
        JsonNode node = mapper.readTree(latchJson.stdout()).get(0);
        assertThat(node.get("type").asText()).isEqualTo("latch");
        assertThat(node.get("open").asBoolean()).isFalse();
        assertThat(node.get("count").asLong()).isEqualTo(2);
        assertThat(node.get("ttlMillis").asLong()).isEqualTo(-1);
    }

    @Test
    void aKeyOfAnotherKindIsRefusedWithoutItsContents(RedisServer redis, LockClient client) throws Exception {
        client.getLock("a-lock").lock();
        RedisClient raw = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            c.sync().hset("cart:42", Map.of("sku-1", "2", "owner", "alice"));
            c.sync().set("a-word", "alice");
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        DlockProcess latch = DlockProcess.run("status", "--redis", redis.uri(), "--latch", "--json", "cart:42",
                "a-lock", "a-word");
        assertThat(latch.exitCode()).as(latch.describe()).isEqualTo(1);
        JsonNode all = mapper.readTree(latch.stdout());
        for (JsonNode node : all) {
            assertThat(node.get("type").asText()).isEqualTo("not_a_latch");
            assertThat(node.get("error").asText()).contains("count-down latch '" + node.get("name").asText() + "'");
        }
        DlockProcess semaphore = DlockProcess.run("status", "--redis", redis.uri(), "--semaphore", "cart:42");
        assertThat(semaphore.exitCode()).as(semaphore.describe()).isEqualTo(1);
        assertThat(semaphore.stdout()).startsWith("cart:42\n  state    not a semaphore\n  error    semaphore "
                + "'cart:42': ");
        DlockProcess auto = DlockProcess.run("status", "--redis", redis.uri(), "--json", "a-word");
        assertThat(auto.exitCode()).as(auto.describe()).isEqualTo(1);
        assertThat(mapper.readTree(auto.stdout()).get(0).get("type").asText()).isEqualTo("not_a_lock");
        for (DlockProcess p : new DlockProcess[] {latch, semaphore, auto}) {
            assertThat(p.stdout() + p.stderr()).doesNotContain("sku-1").doesNotContain("alice");
        }
        DlockProcess both = DlockProcess.run("status", "--redis", redis.uri(), "--latch", "--semaphore", "x");
        assertThat(both.exitCode()).as(both.describe()).isEqualTo(2);
        assertThat(both.stderr()).isEqualTo("dlock: --semaphore and --latch exclude each other\n");
        client.getLock("a-lock").unlock();
    }

    @Test
    void watchPrintsALineWhenThePermitsChange(RedisServer redis, LockClient client) throws Exception {
        LeasedSemaphore sem = client.getLeasedSemaphore("sem:w");
        sem.trySetPermits(2);
        DlockProcess watch = DlockProcess.start("watch", "--redis", redis.uri(), "--interval", "100ms",
                "--semaphore", "sem:w");
        Await.until(Duration.ofSeconds(20), () -> watch.stdout().contains(" sem:w: 2 available, 0 leased\n"),
                watch::describe);
        Permit permit = sem.acquire();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().contains(" sem:w: 1 available, 1 leased: "
                + permit.id() + " (lease "), watch::describe);
        permit.release();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().lines()
                .filter(l -> l.endsWith(" sem:w: 2 available, 0 leased")).count() == 2, watch::describe);
        // the leases change all the time, but are not a change worth a line
        assertThat(watch.stdout().lines()).as(watch.describe()).hasSize(3);
        assertThat(watch.stdout().lines()).allMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} sem:w: .*"));
        watch.process.destroy();
        watch.waitFor(Duration.ofSeconds(10));
        assertThat(watch.stderr()).isEmpty();
    }

    @Test
    void watchFollowsALatchToItsOpening(RedisServer redis, LockClient client) {
        DistributedCountDownLatch latch = client.getCountDownLatch("batch:w");
        latch.trySetCount(2, Duration.ofMinutes(10));
        DlockProcess watch = DlockProcess.start("watch", "--redis", redis.uri(), "--interval", "100ms", "--latch",
                "batch:w");
        Await.until(Duration.ofSeconds(20), () -> watch.stdout().contains(" batch:w: closed, count 2, ttl "),
                watch::describe);
        latch.countDown();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().contains(" batch:w: closed, count 1, ttl "),
                watch::describe);
        latch.countDown();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().contains(" batch:w: open\n"), watch::describe);
        assertThat(watch.stdout().lines()).as(watch.describe()).hasSize(3);
        watch.process.destroy();
        watch.waitFor(Duration.ofSeconds(10));
    }
}
