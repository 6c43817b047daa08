package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedLock;
import io.dlock.DistributedSemaphore;
import io.dlock.LatchInfo;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.NotALockException;
import io.dlock.Permit;
import io.dlock.SemaphoreInfo;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LockClient#inspectSemaphore(String)} and {@link LockClient#inspectCountDownLatch(String)} on objects written
 * by dlock and by Redisson 4.7: counts, leased permits with their ids and remaining leases by the server's clock,
 * expired permits reported but not reclaimed, TTLs, wrong key types refused without their values.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class SemaphoreAndLatchInspectIT {
    private RawRedis raw;
    private RedissonClient redisson;

    @BeforeEach
    void setUp(RedisServer server) {
        raw = RawRedis.connect(server.uri());
        redisson = Redissons.connect(server, 30_000);
    }

    @AfterEach
    void tearDown() {
        redisson.shutdown(0, 5, TimeUnit.SECONDS);
        raw.close();
    }

    @Test
    void aSemaphoreNeverSetHasNoPermits(LockClient client) {
        SemaphoreInfo info = client.inspectSemaphore("insp:unset");
        assertThat(info.name()).isEqualTo("insp:unset");
        assertThat(info.isSet()).isFalse();
        assertThat(info.ttlMillis()).isEqualTo(DistributedLock.TTL_NOT_LOCKED);
        assertThat(info.availablePermits()).isZero();
        assertThat(info.permits()).isEmpty();
        assertThat(info.hasLeasedPermits()).isFalse();
    }

    @Test
    void aPlainSemaphoreShowsItsCountAndTtl(LockClient client) throws Exception {
        DistributedSemaphore sem = client.getSemaphore("insp:plain");
        assertThat(sem.trySetPermits(5, Duration.ofMinutes(10))).isTrue();
        sem.acquire(2);
        SemaphoreInfo info = client.inspectSemaphore("insp:plain");
        assertThat(info.isSet()).isTrue();
        assertThat(info.availablePermits()).isEqualTo(3);
        assertThat(info.ttlMillis()).isBetween(1L, 600_000L);
        assertThat(info.permits()).isEmpty();
        assertThat(info.expiredPermits()).isZero();
        SemaphoreInfo async = client.inspectSemaphoreAsync("insp:plain").get(5, SECONDS);
        assertThat(async.availablePermits()).isEqualTo(3);
        assertThat(async.permits()).isEmpty();
    }

    @Test
    void leasedPermitsOfBothLibrariesAreListedWithTheirIdsAndLeases(LockClient client) throws Exception {
        String name = "insp:leased";
        LeasedSemaphore ours = client.getLeasedSemaphore(name);
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        assertThat(ours.trySetPermits(4)).isTrue();
        Permit watchdog = ours.acquire();
        Permit fixed = ours.acquire(Duration.ofSeconds(20));
        String redissonNoLease = theirs.acquire();

        SemaphoreInfo info = client.inspectSemaphore(name);
        assertThat(info.availablePermits()).isEqualTo(1);
        assertThat(info.totalPermits()).isEqualTo(4);
        assertThat(info.hasLeasedPermits()).isTrue();
        assertThat(info.expiredPermits()).isZero();
        assertThat(info.permits()).extracting(SemaphoreInfo.PermitLease::id)
                .as("soonest first (20 s, then the 30 s watchdog lease), no lease last")
                .containsExactly(fixed.id(), watchdog.id(), redissonNoLease);
        Map<String, Long> leases = info.permits().stream().collect(java.util.stream.Collectors.toMap(
                SemaphoreInfo.PermitLease::id, SemaphoreInfo.PermitLease::leaseMillis));
        assertThat(leases.get(fixed.id())).isBetween(15_000L, 20_000L);
        assertThat(leases.get(watchdog.id())).isBetween(20_001L, 30_000L);
        assertThat(leases.get(redissonNoLease)).as("Redisson's permit without a lease").isEqualTo(-1L);

        assertThat(client.inspectSemaphoreAsync(name).get(5, SECONDS).permits()).hasSize(3);
        watchdog.release();
        fixed.release();
        theirs.release(redissonNoLease);
        SemaphoreInfo after = client.inspectSemaphore(name);
        assertThat(after.availablePermits()).isEqualTo(4);
        assertThat(after.hasLeasedPermits()).as("Redis dropped the empty table").isFalse();
    }

    @Test
    void anExpiredPermitIsReportedAsAvailableWithoutBeingReclaimed(LockClient client) throws Exception {
        String name = "insp:expired";
        LeasedSemaphore sem = client.getLeasedSemaphore(name);
        sem.trySetPermits(2);
        Permit shortLease = sem.acquire(Duration.ofMillis(100));
        Await.until(Duration.ofSeconds(5), () -> client.inspectSemaphore(name).expiredPermits() == 1,
                "the 100 ms lease ends");
        SemaphoreInfo info = client.inspectSemaphore(name);
        assertThat(info.expiredPermits()).isEqualTo(1);
        assertThat(info.permits()).isEmpty();
        assertThat(info.availablePermits()).isEqualTo(2);
        assertThat(raw.sync().get(name)).as("the count in Redis is untouched").isEqualTo("1");
        assertThat(raw.sync().zcard("{" + name + "}:timeout")).as("nothing reclaimed").isEqualTo(1);
        assertThat(shortLease.release()).isFalse();
    }

    @Test
    void latchesOfBothLibrariesShowTheirCountAndTtl(LockClient client) throws Exception {
        DistributedCountDownLatch ours = client.getCountDownLatch("insp:latch");
        assertThat(client.inspectCountDownLatch("insp:latch")).isEqualTo(new LatchInfo("insp:latch", 0, -2));
        assertThat(client.inspectCountDownLatch("insp:latch").isOpen()).isTrue();
        ours.trySetCount(3, Duration.ofMinutes(5));
        ours.countDown();
        LatchInfo info = client.inspectCountDownLatch("insp:latch");
        assertThat(info.count()).isEqualTo(2);
        assertThat(info.isOpen()).isFalse();
        assertThat(info.ttlMillis()).isBetween(1L, 300_000L);

        RCountDownLatch theirs = redisson.getCountDownLatch("insp:redisson-latch");
        theirs.trySetCount(7);
        LatchInfo redissons = client.inspectCountDownLatchAsync("insp:redisson-latch").get(5, SECONDS);
        assertThat(redissons.count()).isEqualTo(7);
        assertThat(redissons.ttlMillis()).isEqualTo(DistributedLock.TTL_NO_EXPIRY);
    }

    @Test
    void keysOfOtherTypesAreRefusedWithoutTheirValues(LockClient client) {
        raw.sync().hset("insp:cart", Map.of("sku-1", "secret-value"));
        raw.sync().set("insp:text", "secret-text");
        raw.sync().set("insp:sem", "2");
        raw.sync().set("{insp:sem}:timeout", "not-a-zset");
        assertThatThrownBy(() -> client.inspectSemaphore("insp:cart")).isInstanceOf(NotALockException.class)
                .hasMessageContaining("semaphore 'insp:cart'").hasMessageContaining("hash")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> client.inspectSemaphore("insp:text")).isInstanceOf(NotALockException.class)
                .hasMessageContaining("not a permit count").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> client.inspectSemaphore("insp:sem")).isInstanceOf(NotALockException.class)
                .hasMessageContaining("permit table");
        assertThatThrownBy(() -> client.inspectCountDownLatch("insp:cart")).isInstanceOf(NotALockException.class)
                .hasMessageContaining("count-down latch 'insp:cart'").hasMessageContaining("hash")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> client.inspectCountDownLatch("insp:text")).isInstanceOf(NotALockException.class)
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> client.inspectSemaphore(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.inspectCountDownLatch(null)).isInstanceOf(NullPointerException.class);
        assertThat(raw.sync().hgetall("insp:cart")).containsEntry("sku-1", "secret-value");
    }
}
