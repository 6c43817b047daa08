package io.dlock.it;

import io.dlock.ClientIdentity;
import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockInfo;
import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.HoldAndHang;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holder identity (docs/protocol.md §6.1): every client keeps a card {@code dlock_client:{CID}} (host, pid,
 * application, since) written at connect, refreshed with its watchdog's rounds while it holds anything, removed at
 * close, expiring three watchdog timeouts after its last round; {@code inspect} names each holder by its card.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HolderIdentityIT {
    private RawRedis raw;

    @BeforeEach
    void connect(RedisServer server) {
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void close() {
        raw.close();
    }

    private static String card(String clientId) {
        return "dlock_client:{" + clientId + "}";
    }

    private static LockClient client(RedisServer server, String application, long watchdogMs) {
        return LockClient.create(LockClientConfig.builder().redisUri(server.uri()).applicationName(application)
                .watchdogTimeout(Duration.ofMillis(watchdogMs)).build());
    }

    @Test
    void inspectNamesTheHostPidAndApplicationOfEachHoldingClient(RedisServer server, LockClient reader) {
        try (LockClient orders = client(server, "orders-svc", 30_000);
             LockClient billing = client(server, "billing-svc", 30_000)) {
            DistributedReadWriteLock rw = orders.getReadWriteLock("identity:rw");
            rw.readLock().lock();
            billing.getReadWriteLock("identity:rw").readLock().lock();
            orders.getLock("identity:plain").lock();

            LockInfo plain = reader.inspect("identity:plain");
            assertThat(plain.holders()).singleElement().satisfies(h -> {
                assertThat(h.identity()).contains(orders.identity());
                ClientIdentity who = h.identity().orElseThrow();
                assertThat(who.host()).isNotBlank();
                assertThat(who.pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(who.application()).isEqualTo("orders-svc");
            });
            // the hold compares as before: the identity is read beside it
            assertThat(plain.holders()).containsExactly(
                    new LockInfo.Holder(orders.getId(), Thread.currentThread().getId(), 1, false));

            LockInfo shared = reader.inspect("identity:rw");
            assertThat(shared.holders()).hasSize(2);
            for (LockInfo.Holder h : shared.holders()) {
                LockClient expected = h.clientId().equals(orders.getId()) ? orders : billing;
                assertThat(h.identity()).as(h.toString()).contains(expected.identity());
            }
            assertThat(raw.hgetall(card(orders.getId()))).containsEntry("application", "orders-svc")
                    .containsEntry("pid", Long.toString(ProcessHandle.current().pid()))
                    .containsKeys("host", "since");
        }
    }

    @Test
    void aHolderInAnotherProcessIsNamedByItsCardAndTheCardExpiresAfterTheProcessDies(RedisServer server,
                                                                                     LockClient reader) {
        long watchdogMs = 1000;
        String name = "identity:child";
        try (ChildJvm child = ChildJvm.start("HolderIdentityIT-holder", HoldAndHang.class, server.uri(), name,
                Long.toString(watchdogMs), "child-app")) {
            String[] locked = child.awaitLine("LOCKED ", Duration.ofSeconds(60)).split(" ");
            String childId = locked[1];
            Optional<ClientIdentity> who = reader.inspect(name).holders().get(0).identity();
            assertThat(who).as(child.describe()).isPresent();
            assertThat(who.get().pid()).isEqualTo(child.process().pid());
            assertThat(who.get().application()).isEqualTo("child-app");
            assertThat(who.get().clientId()).isEqualTo(childId);
            // refreshed with the child's renewals: present beyond two of its TTLs, never longer than one TTL
            Await.during(Duration.ofMillis(2 * 3 * watchdogMs), () -> {
                long ttl = raw.pttl(card(childId));
                return ttl > 0 && ttl <= 3 * watchdogMs;
            }, () -> "the living child's card: pttl " + raw.pttl(card(childId)));

            child.kill();
            long killed = System.nanoTime();
            Await.until(Duration.ofMillis(3 * watchdogMs + 3000), () -> !raw.exists(card(childId)),
                    () -> "the dead child's card is still there: pttl " + raw.pttl(card(childId)));
            assertThat(Await.millisSince(killed)).as("ms from SIGKILL to the card's expiry")
                    .isGreaterThan(watchdogMs); // it lives its TTL out (3 watchdogs from the last round)
            assertThat(reader.inspect(name).holders()).as("the lock expired before its card").isEmpty();
        }
    }

    /** And a hash under a Redisson client's card name that is not a card (no host, a pid that is not a number). */
    @Test
    void aRedissonHolderHasNoIdentity(RedisServer server, LockClient reader) {
        RedissonClient redisson = Redissons.connect(server, 30_000);
        try {
            RLock lock = redisson.getLock("identity:redisson");
            lock.lock();
            try {
                LockInfo info = reader.inspect("identity:redisson");
                assertThat(info.holders()).singleElement()
                        .satisfies(h -> assertThat(h.identity()).as("a Redisson holder writes no card").isEmpty());
                String key = card(info.holders().get(0).clientId());
                raw.sync().hset(key, Map.of("pid", "x", "application", "not a card"));
                assertThat(reader.inspect("identity:redisson").holders().get(0).identity()).isEmpty();
                raw.sync().hset(key, Map.of("host", "h1"));
                assertThat(reader.inspect("identity:redisson").holders().get(0).identity()).isEmpty();
                raw.sync().hset(key, Map.of("pid", "42"));
                assertThat(reader.inspect("identity:redisson").holders().get(0).identity())
                        .as("the test can tell a card: this one is complete")
                        .contains(new ClientIdentity(info.holders().get(0).clientId(), "h1", 42, "not a card"));
            } finally {
                lock.unlock();
            }
        } finally {
            redisson.shutdown(0, 5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theCardIsWrittenAtConnectAndRemovedAtClose(RedisServer server) {
        LockClient client = client(server, "short-lived", 30_000);
        String id = client.getId();
        Map<String, String> card = raw.hgetall(card(id));
        assertThat(card).containsEntry("application", "short-lived").containsKeys("host", "pid", "since");
        assertThat(raw.pttl(card(id))).isBetween(1L, 90_000L);
        client.close();
        assertThat(raw.exists(card(id))).as("removed by close()").isFalse();
    }

    @Test
    void anIdleClientWritesNothingAndItsCardExpires(
            @ClientSettings(watchdogTimeoutMillis = 300) LockClient idle) {
        String key = card(idle.getId());
        assertThat(raw.exists(key)).isTrue();
        Await.until(Duration.ofSeconds(10), () -> !raw.exists(key), "the idle client's card should expire");
        DistributedLock lock = idle.getLock("identity:late");
        lock.lock();
        try {
            // back with the next round of the watchdog (a third of 300 ms)
            Await.until(Duration.ofSeconds(5), () -> raw.exists(key), "the card should come back with the rounds");
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aCardKeyOfAnotherTypeLeavesTheIdentityUnknownAndIsLeftAlone(
            @ClientSettings(watchdogTimeoutMillis = 1500) LockClient holder, LockClient reader) {
        String key = card(holder.getId());
        raw.sync().del(key);
        raw.sync().set(key, "someone else's");
        DistributedLock lock = holder.getLock("identity:odd-card");
        lock.lock();
        try {
            assertThat(reader.inspect("identity:odd-card").holders()).singleElement()
                    .satisfies(h -> assertThat(h.identity()).isEmpty());
            // rounds come every 500 ms: several of them leave the string as it was
            Await.during(Duration.ofMillis(2000), () -> "someone else's".equals(raw.sync().get(key)),
                    () -> "the string under the card's name was changed: " + raw.sync().type(key));
            assertThat(raw.pttl(key)).as("its TTL too").isEqualTo(-1L);
        } finally {
            lock.unlock();
        }
        holder.close();
        assertThat(raw.sync().get(key)).as("close() does not remove it either").isEqualTo("someone else's");
    }
}
