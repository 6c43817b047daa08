package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.NotALockException;
import io.dlock.Permit;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lock wing's rules on the synchronizers (issue 27's reproduced failures): a lost reply never costs permits, close
 * drains what is in flight, a name never aliases another's keys, a key of another type is never written or deleted,
 * and bad input is refused before anything is sent. Each test failed on the code before the shared plumbing.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class FamilyPlumbingIT {
    /** Short enough that a stall of {@link #STALL_MS} outlasts several command timeouts. */
    static final long COMMAND_MS = 200;
    private static final long STALL_MS = 1_500;

    private String name;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:FamilyPlumbingIT:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
        workers = new Workers("family-plumbing");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    /** Stalls Redis (SIGSTOP) for {@code millis} on a worker thread, as a long command or a GC pause would. */
    private Future<?> stall(RedisServer server, long millis) {
        server.pause();
        return workers.submit(() -> {
            try {
                Thread.sleep(millis);
            } finally {
                server.resume();
            }
            return null;
        });
    }

    // ---- #1: a stall longer than the command timeout

    @Test
    void anAcquireThroughAStallLongerThanTheCommandTimeoutTakesExactlyItsPermits(
            RedisServer server, @ClientSettings(commandTimeoutMillis = COMMAND_MS) LockClient client,
            LockClient other) throws Exception {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThat(semaphore.trySetPermits(5)).isTrue();
        assertThat(semaphore.tryAcquire()).isTrue(); // warm: scripts loaded
        semaphore.release();
        Future<?> stalled = stall(server, STALL_MS);
        Future<?> acquired = workers.submit(() -> {
            semaphore.acquire();
            return null;
        });
        stalled.get(10, SECONDS);
        acquired.get(20, SECONDS);
        DistributedSemaphore seen = other.getSemaphore(name);
        Await.until(Duration.ofSeconds(5), () -> seen.availablePermits() == 4,
                () -> "permits after one acquire through the stall: " + seen.availablePermits());
        for (String mark : raw.sync().keys("*" + name + "*:dlock_grant:*")) {
            assertThat(raw.sync().pttl(mark)).as("grant marks expire by themselves: %s", mark).isBetween(1L, 15_000L);
        }
        semaphore.release();
        assertThat(seen.availablePermits()).isEqualTo(5);
    }

    @Test
    void aLeasedAcquireThroughAStallLongerThanTheCommandTimeoutTakesExactlyOnePermit(
            RedisServer server, @ClientSettings(commandTimeoutMillis = COMMAND_MS) LockClient client,
            LockClient other) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(5)).isTrue();
        semaphore.tryAcquire().orElseThrow().release(); // warm
        Future<?> stalled = stall(server, STALL_MS);
        Future<Permit> acquired = workers.submit(() -> semaphore.acquire(Duration.ofMinutes(1)));
        stalled.get(10, SECONDS);
        Permit permit = acquired.get(20, SECONDS);
        LeasedSemaphore seen = other.getLeasedSemaphore(name);
        Await.until(Duration.ofSeconds(5), () -> seen.availablePermits() == 4 && seen.acquiredPermits() == 1,
                () -> "available " + seen.availablePermits() + ", acquired " + seen.acquiredPermits());
        permit.release();
        assertThat(seen.availablePermits()).isEqualTo(5);
    }

    // ---- #2: close() with an acquisition in flight

    @Test
    void closeDuringAStallGivesBackWhatTheInFlightAttemptTakes(RedisServer server, LockClient other)
            throws Exception {
        LockClient client = LockClient.create(io.dlock.LockClientConfig.builder().redisUri(server.uri()).build());
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThat(semaphore.trySetPermits(3)).isTrue();
        assertThat(semaphore.tryAcquire()).isTrue(); // warm
        semaphore.release();
        Future<?> stalled = stall(server, 500);
        CompletableFuture<Void> acquisition = semaphore.acquireAsync(2);
        client.close();
        stalled.get(10, SECONDS);
        assertThatThrownBy(() -> acquisition.get(10, SECONDS)).hasCauseInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        assertThat(other.getSemaphore(name).availablePermits()).as("permits after close").isEqualTo(3);
    }

    @Test
    void closeDuringAStallGivesBackALeasedPermitTheInFlightAttemptTakes(RedisServer server, LockClient other)
            throws Exception {
        LockClient client = LockClient.create(io.dlock.LockClientConfig.builder().redisUri(server.uri()).build());
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(3)).isTrue();
        semaphore.tryAcquire().orElseThrow().release(); // warm
        Future<?> stalled = stall(server, 500);
        CompletableFuture<Permit> acquisition = semaphore.acquireAsync(Duration.ofMinutes(5));
        client.close();
        stalled.get(10, SECONDS);
        assertThatThrownBy(() -> acquisition.get(10, SECONDS)).hasCauseInstanceOf(LockException.class);
        LeasedSemaphore seen = other.getLeasedSemaphore(name);
        assertThat(seen.availablePermits()).as("permits after close").isEqualTo(3);
        assertThat(seen.acquiredPermits()).isZero();
    }

    // ---- #3: names whose derived keys would be another name's

    @Test
    void aLeasedSemaphoreNamedAsAWholeHashTagIsRefused(LockClient client) {
        assertThatThrownBy(() -> client.getLeasedSemaphore("{" + name + "}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{" + name + "}")
                .hasMessageContaining("leased semaphore");
        assertThat(client.getLeasedSemaphore(name).getName()).isEqualTo(name);
    }

    // ---- #4: delete() of a key of another type

    @Test
    void deleteOfABusinessKeyIsRefusedAndLeavesIt(LockClient client) {
        raw.sync().hset(name, "field", "precious");
        assertThatThrownBy(() -> client.getSemaphore(name).delete()).isInstanceOf(NotALockException.class)
                .hasMessageContaining(name).hasMessageNotContaining("precious");
        assertThatThrownBy(() -> client.getLeasedSemaphore(name).delete()).isInstanceOf(NotALockException.class)
                .hasMessageContaining(name);
        assertThatThrownBy(() -> client.getSemaphore(name).deleteAsync().join())
                .hasCauseInstanceOf(NotALockException.class);
        assertThat(raw.sync().hget(name, "field")).isEqualTo("precious");

        raw.sync().del(name);
        raw.sync().set(name, "text");
        assertThatThrownBy(() -> client.getSemaphore(name).delete()).isInstanceOf(NotALockException.class);
        assertThat(raw.sync().get(name)).isEqualTo("text");

        raw.sync().set(name, "7");
        assertThat(client.getSemaphore(name).delete()).as("a permit count is deleted").isTrue();
        assertThat(raw.sync().exists(name)).isZero();
    }

    // ---- #11: lock() on a key of another type

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void lockOfAStringOrAListIsANotALockExceptionNamingTheType(LockKind kind, LockClient client) {
        raw.sync().set(name, "precious");
        DistributedLock lock = client.getLock(kind, name);
        assertThatThrownBy(lock::lock).isInstanceOf(NotALockException.class).hasMessageContaining(name)
                .hasMessageContaining("holds a string").hasMessageNotContaining("user_script");
        assertThatThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)).isInstanceOf(NotALockException.class);
        assertThat(raw.sync().get(name)).isEqualTo("precious");
        raw.sync().del(name);
        raw.sync().rpush(name, "a");
        assertThatThrownBy(lock::lock).isInstanceOf(NotALockException.class).hasMessageContaining("holds a list");
        assertThat(raw.sync().lrange(name, 0, -1)).containsExactly("a");
    }

    @Test
    void aOneSlotMultiLockOverAStringIsANotALockException(LockClient client) {
        String a = "{" + name + "}:a";
        String b = "{" + name + "}:b";
        raw.sync().set(b, "precious");
        DistributedLock multi = client.getMultiLock(List.of(client.getLock(a), client.getLock(b)));
        assertThatThrownBy(multi::lock).isInstanceOf(NotALockException.class).hasMessageContaining("holds a string");
        assertThat(raw.sync().get(b)).isEqualTo("precious");
        assertThat(raw.sync().exists(a)).as("nothing taken").isZero();
    }

    // ---- #13: one argument rule for every wing

    @Test
    void aWaitOfForeverMeansNoLimitForTheSemaphores(LockClient client) throws Exception {
        Duration forever = ChronoUnit.FOREVER.getDuration();
        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(1);
        assertThat(semaphore.tryAcquire(1, forever)).isTrue();
        LeasedSemaphore leased = client.getLeasedSemaphore(name + ":leased");
        leased.trySetPermits(1);
        Optional<Permit> permit = leased.tryAcquire(forever, Duration.ofSeconds(5));
        assertThat(permit).isPresent();
        permit.get().release();
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name).hasMessageContaining("waitTime");
    }

    @Test
    void aRefusedTtlOrCountLeavesNothingWrittenOrPublished(LockClient client) {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThatThrownBy(() -> semaphore.trySetPermits(3, Duration.ofMillis(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name).hasMessageContaining("ttl");
        assertThat(raw.sync().exists(name)).isZero();
        assertThatThrownBy(() -> client.getLeasedSemaphore(name).trySetPermits(3, Duration.ofMillis(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(raw.sync().exists(name)).isZero();

        semaphore.trySetPermits(Integer.MAX_VALUE);
        assertThatThrownBy(() -> semaphore.addPermits(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name).hasMessageContaining("outside the range");
        assertThatThrownBy(() -> semaphore.release()).isInstanceOf(IllegalArgumentException.class);
        assertThat(semaphore.availablePermits()).isEqualTo(Integer.MAX_VALUE);
        assertThat(semaphore.drainPermits()).isEqualTo(Integer.MAX_VALUE);
    }
}
