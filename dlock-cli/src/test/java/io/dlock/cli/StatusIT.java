package io.dlock.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code dlock status} and {@code dlock unlock --force}. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class StatusIT {
    private final ObjectMapper mapper = new ObjectMapper();

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    @Test
    void jsonDescribesHeldAndFreeLocks(RedisServer redis, LockClient client) throws Exception {
        String odd = "we\"ird\\name ü";
        DistributedLock lock = client.getLock("orders:42");
        lock.lock();
        lock.lock();
        client.getLock(odd).lock();
        long thread = Thread.currentThread().getId();

        DlockProcess p = DlockProcess.run("status", "--redis", redis.uri(), "--json", "orders:42", "free-one", odd);
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stderr()).isEmpty();
        JsonNode all = mapper.readTree(p.stdout());
        assertThat(all.isArray()).isTrue();
        assertThat(all).hasSize(3);

        JsonNode held = all.get(0);
        assertThat(held.get("name").asText()).isEqualTo("orders:42");
        assertThat(held.get("type").asText()).isEqualTo("lock");
        assertThat(held.get("locked").asBoolean()).isTrue();
        assertThat(held.get("mode").isNull()).isTrue();
        assertThat(held.get("ttlMillis").asLong()).isBetween(1L, 30_000L);
        assertThat(held.get("holders")).hasSize(1);
        assertThat(held.get("holders").get(0).get("clientId").asText()).isEqualTo(client.getId());
        assertThat(held.get("holders").get(0).get("ownerId").asLong()).isEqualTo(thread);
        assertThat(held.get("holders").get(0).get("holdCount").asInt()).isEqualTo(2);
        assertThat(held.get("waiters")).isEmpty();

        JsonNode free = all.get(1);
        assertThat(free.get("name").asText()).isEqualTo("free-one");
        assertThat(free.get("type").asText()).isEqualTo("none");
        assertThat(free.get("locked").asBoolean()).isFalse();
        assertThat(free.get("ttlMillis").asLong()).isEqualTo(-2);
        assertThat(free.get("holders")).isEmpty();

        assertThat(all.get(2).get("name").asText()).isEqualTo(odd);
        assertThat(all.get(2).get("locked").asBoolean()).isTrue();
    }

    @Test
    void textShowsHolderHoldCountAndTtl(RedisServer redis, LockClient client) {
        DistributedLock lock = client.getLock("orders:42");
        lock.lock();
        lock.lock();
        DlockProcess p = DlockProcess.run("status", "--redis", redis.uri(), "orders:42", "free-one");
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).contains("orders:42\n  state    locked\n  holder   " + client.getId() + ":"
                + Thread.currentThread().getId() + "  hold count 2\n  ttl      ");
        assertThat(p.stdout()).contains("free-one\n  state    free\n  queue    empty\n");
    }

    @Test
    void theHoldersClientIsNamedByHostPidAndApplication(RedisServer redis) throws Exception {
        try (LockClient holder = LockClient.create(io.dlock.LockClientConfig.builder().redisUri(redis.uri())
                .applicationName("orders-svc").build())) {
            holder.getLock("orders:42").lock();
            io.dlock.ClientIdentity who = holder.identity();
            String named = "orders-svc@" + who.host() + " pid " + ProcessHandle.current().pid();

            DlockProcess text = DlockProcess.run("status", "--redis", redis.uri(), "orders:42");
            assertThat(text.exitCode()).as(text.describe()).isZero();
            assertThat(text.stdout()).contains("  holder   " + holder.getId() + ":" + Thread.currentThread().getId()
                    + "  hold count 1\n  ttl      ").contains("\n  client   " + holder.getId() + "  " + named + "\n");

            DlockProcess json = DlockProcess.run("status", "--redis", redis.uri(), "--json", "orders:42");
            JsonNode identity = mapper.readTree(json.stdout()).get(0).get("holders").get(0).get("identity");
            assertThat(identity.get("host").asText()).isEqualTo(who.host());
            assertThat(identity.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
            assertThat(identity.get("application").asText()).isEqualTo("orders-svc");
        }
    }

    @Test
    void aHoldersThreadAndSinceAreShownWhenItsClientKeepsHoldDetails(RedisServer redis) throws Exception {
        try (LockClient holder = LockClient.create(io.dlock.LockClientConfig.builder().redisUri(redis.uri())
                .holdDetails(true).build())) {
            java.util.concurrent.CompletableFuture<Long> taken = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
            Thread t = new Thread(() -> {
                DistributedLock lock = holder.getLock("orders:43");
                lock.lock();
                taken.complete(Thread.currentThread().getId());
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                lock.unlock();
            }, "orders-worker-7");
            t.start();
            long owner = taken.get(10, SECONDS);
            try {
                DlockProcess text = DlockProcess.run("status", "--redis", redis.uri(), "orders:43");
                assertThat(text.exitCode()).as(text.describe()).isZero();
                assertThat(text.stdout()).containsPattern("  holder   " + holder.getId() + ":" + owner
                        + "  hold count 1  since \\d\\d:\\d\\d:\\d\\d\\.\\d{3}  thread orders-worker-7\n");

                DlockProcess json = DlockProcess.run("status", "--redis", redis.uri(), "--json", "orders:43");
                JsonNode h = mapper.readTree(json.stdout()).get(0).get("holders").get(0);
                assertThat(h.get("thread").asText()).isEqualTo("orders-worker-7");
                assertThat(java.time.Instant.parse(h.get("since").asText()))
                        .isBetween(java.time.Instant.now().minusSeconds(60), java.time.Instant.now().plusSeconds(1));
            } finally {
                done.countDown();
                t.join(5_000);
            }
        }
    }

    @Test
    void aKeyThatIsNotALockIsReportedAndExitsOne(RedisServer redis) throws Exception {
        RedisClient raw = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            c.sync().set("a-string", "x");
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        DlockProcess p = DlockProcess.run("status", "--redis", redis.uri(), "--json", "a-string", "free-one");
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(1);
        JsonNode all = mapper.readTree(p.stdout());
        assertThat(all.get(0).get("error").asText()).contains("not a lock");
        assertThat(all.get(1).get("type").asText()).isEqualTo("none");
    }

    @Test
    void aHashThatIsNotALockIsReportedWithoutItsFieldsOrValues(RedisServer redis) throws Exception {
        RedisClient raw = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            c.sync().hset("cart:42", Map.of("sku-1", "2", "owner", "alice"));
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        DlockProcess json = DlockProcess.run("status", "--redis", redis.uri(), "--json", "cart:42", "free-one");
        assertThat(json.exitCode()).as(json.describe()).isEqualTo(1);
        JsonNode all = mapper.readTree(json.stdout());
        assertThat(all.get(0).get("name").asText()).isEqualTo("cart:42");
        assertThat(all.get(0).get("type").asText()).isEqualTo("not_a_lock");
        assertThat(all.get(0).get("error").asText()).contains("'cart:42'").contains("hash that is not a lock");
        assertThat(all.get(1).get("type").asText()).isEqualTo("none");

        DlockProcess text = DlockProcess.run("status", "--redis", redis.uri(), "cart:42");
        assertThat(text.exitCode()).as(text.describe()).isEqualTo(1);
        assertThat(text.stdout()).startsWith("cart:42\n  state    not a lock\n");
        for (DlockProcess p : List.of(json, text)) {
            assertThat(p.stdout() + p.stderr()).doesNotContain("sku-1").doesNotContain("alice")
                    .doesNotContain("owner");
        }
    }

    @Test
    void unlockForceRefusesAHashThatIsNotALockAndLeavesIt(RedisServer redis) {
        RedisClient raw = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            c.sync().hset("cart:42", Map.of("sku-1", "2", "owner", "alice"));
            c.sync().set("a-string", "x");

            DlockProcess p = DlockProcess.run("unlock", "--redis", redis.uri(), "--force", "cart:42");
            assertThat(p.exitCode()).as(p.describe()).isEqualTo(1);
            assertThat(p.stdout()).isEmpty();
            assertThat(p.stderr()).startsWith("dlock: lock 'cart:42': ").contains("hash that is not a lock")
                    .contains("nothing was changed").doesNotContain("sku-1").doesNotContain("alice")
                    .doesNotContain("owner");
            assertThat(c.sync().hgetall("cart:42")).isEqualTo(Map.of("sku-1", "2", "owner", "alice"));

            DlockProcess string = DlockProcess.run("unlock", "--redis", redis.uri(), "--force", "a-string");
            assertThat(string.exitCode()).as(string.describe()).isEqualTo(1);
            assertThat(string.stderr()).contains("'a-string'").contains("holds a string, not a lock");
            assertThat(c.sync().get("a-string")).isEqualTo("x");
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    @Test
    void unlockForceRemovesAReadWriteLockInEitherMode(RedisServer redis, LockClient client) {
        DistributedReadWriteLock rw = client.getReadWriteLock("rw-read");
        rw.readLock().lock();
        DlockProcess read = DlockProcess.run("unlock", "--redis", redis.uri(), "--force", "rw-read");
        assertThat(read.exitCode()).as(read.describe()).isZero();
        assertThat(read.stdout()).startsWith("released lock 'rw-read' (read), held by " + client.getId());
        assertThat(rw.readLock().isLocked()).isFalse();

        DistributedReadWriteLock w = client.getReadWriteLock("rw-write");
        w.writeLock().lock();
        DlockProcess write = DlockProcess.run("unlock", "--redis", redis.uri(), "--force", "rw-write");
        assertThat(write.exitCode()).as(write.describe()).isZero();
        assertThat(write.stdout()).startsWith("released lock 'rw-write' (write), held by " + client.getId());
        assertThat(w.writeLock().isLocked()).isFalse();
    }

    @Test
    void readWriteLockShowsItsMode(RedisServer redis, LockClient client) throws Exception {
        DistributedReadWriteLock rw = client.getReadWriteLock("rw");
        rw.readLock().lock();
        DlockProcess p = DlockProcess.run("status", "--redis", redis.uri(), "--json", "rw");
        assertThat(p.exitCode()).as(p.describe()).isZero();
        JsonNode node = mapper.readTree(p.stdout()).get(0);
        assertThat(node.get("type").asText()).isEqualTo("read_write");
        assertThat(node.get("mode").asText()).isEqualTo("read");
        assertThat(node.get("holders").get(0).get("write").asBoolean()).isFalse();
        rw.readLock().unlock();
    }

    @Test
    void unlockForcePrintsTheFormerHolder(RedisServer redis, LockClient client) {
        client.getLock("stuck").lock();
        DlockProcess p = DlockProcess.run("unlock", "--redis", redis.uri(), "--force", "stuck");
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).startsWith("released lock 'stuck', held by " + client.getId() + ":"
                + Thread.currentThread().getId() + ", ttl was ");
        assertThat(client.getLock("stuck").isLocked()).isFalse();

        DlockProcess again = DlockProcess.run("unlock", "--redis", redis.uri(), "--force", "stuck");
        assertThat(again.exitCode()).as(again.describe()).isEqualTo(1);
        assertThat(again.stderr()).isEqualTo("dlock: lock 'stuck' was not held\n");
    }
}
