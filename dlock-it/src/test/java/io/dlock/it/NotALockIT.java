package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.NotALockException;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keys that are not locks, and names whose keys would be another lock's: a force-unlock of a string or a list fails
 * with a {@link LockException} naming the lock and leaves the key as it was (never deleted as if it were a lock), and
 * the fair and read-write locks refuse a name that is one whole hash tag ({@code {x}}), whose queue, timeout keys and
 * channels are those of {@code x}.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 30, unit = SECONDS)
class NotALockIT {

    private String name;
    private RawRedis raw;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:NotALockIT:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void tearDown() {
        raw.close();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void forceUnlockOfAStringOrAListFailsAndLeavesTheKey(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        raw.sync().set(name, "precious");
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(NotALockException.class).hasMessageContaining(name)
                .hasMessageContaining("holds a string, not a lock").hasMessageNotContaining("precious");
        assertThat(raw.sync().get(name)).isEqualTo("precious");
        assertThat(raw.pttl(name)).as("no TTL was added either").isEqualTo(-1L);
        assertThatThrownBy(() -> lock.forceUnlockAsync().get(5, SECONDS)).hasCauseInstanceOf(LockException.class);
        assertThat(raw.sync().get(name)).isEqualTo("precious");

        raw.sync().del(name);
        raw.sync().rpush(name, "a", "b");
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(NotALockException.class).hasMessageContaining(name)
                .hasMessageContaining("holds a list, not a lock");
        assertThat(raw.sync().lrange(name, 0, -1)).isEqualTo(List.of("a", "b"));
        raw.sync().del(name);

        // a real lock is still removed
        lock.lock();
        assertThat(a.getLock(kind, name).forceUnlock()).isTrue();
        assertThat(raw.exists(name)).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    /** Hashes that are not locks: a shopping cart, a Spring Session, and near misses of a lock's layout. */
    static Stream<Map<String, String>> hashesThatAreNotLocks() {
        String uuid = "5be6a1b2-0c3d-4e5f-8a9b-0123456789ab";
        return Stream.of(
                Map.of("sku-1", "2", "owner", "alice"),
                Map.of("creationTime", "1700000000000", "lastAccessedTime", "1700000000500",
                        "maxInactiveInterval", "1800", "sessionAttr:user", "alice"),
                Map.of("user:42", "3"),
                Map.of(uuid + ":1", "1", "note", "x"),
                Map.of(uuid + ":1", "one"),
                Map.of(uuid + ":1", "1", "mode", "exclusive"),
                Map.of(uuid + ":1:write", "1"),
                Map.of("mode", "write", "sku-1", "2"));
    }

    @ParameterizedTest
    @MethodSource("kindsAndHashes")
    void forceUnlockOfAHashThatIsNotALockIsRefusedAndLeavesIt(LockKind kind, Map<String, String> hash, LockClient a)
            throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        raw.sync().hset(name, hash);
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(NotALockException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining("not a lock")
                .satisfies(e -> assertThat(((LockException) e).lockName()).isEqualTo(name))
                .satisfies(e -> assertNoneOf(hash, e.getMessage().replace(name, "NAME")));
        assertThatThrownBy(() -> lock.forceUnlockAsync().get(5, SECONDS))
                .hasCauseInstanceOf(NotALockException.class);
        assertThat(raw.hgetall(name)).isEqualTo(hash);
        assertThat(raw.pttl(name)).as("no TTL was added either").isEqualTo(-1L);

        assertThatThrownBy(() -> a.inspect(name)).isInstanceOf(NotALockException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining("not a lock")
                .satisfies(e -> assertNoneOf(hash, e.getMessage().replace(name, "NAME")));
    }

    /** An acquisition is refused too (it would wait for ever: the key has no TTL), and writes nothing. */
    @ParameterizedTest
    @MethodSource("kindsAndHashes")
    void acquiringAHashThatIsNotALockIsRefusedAndLeavesIt(LockKind kind, Map<String, String> hash, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        raw.sync().hset(name, hash);
        assertThatThrownBy(() -> lock.tryLock(10, SECONDS)).isInstanceOf(NotALockException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining("not a lock")
                .satisfies(e -> assertNoneOf(hash, e.getMessage().replace(name, "NAME")));
        assertThat(lock.lockAsync()).failsWithin(java.time.Duration.ofSeconds(10)).withThrowableThat()
                .havingCause().isInstanceOf(NotALockException.class);
        assertThat(raw.hgetall(name)).isEqualTo(hash);
        assertThat(raw.pttl(name)).as("no TTL was added either").isEqualTo(-1L);
    }

    static Stream<Arguments> kindsAndHashes() {
        return Stream.of(LockKind.values())
                .flatMap(kind -> hashesThatAreNotLocks().map(hash -> Arguments.of(kind, hash)));
    }

    /** Neither a field nor a value of the hash shows in a message (they may be business data). */
    private static void assertNoneOf(Map<String, String> hash, String message) {
        hash.forEach((field, value) -> {
            if (!field.equals("mode")) {
                assertThat(message).doesNotContain(field);
            }
            if (value.length() > 1) {
                assertThat(message).doesNotContain(value);
            }
        });
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aLockWrittenByRedissonOrByHandIsStillALock(LockKind kind, LockClient a) {
        String uuid = "5be6a1b2-0c3d-4e5f-8a9b-0123456789ab";
        boolean readWrite = kind == LockKind.READ || kind == LockKind.WRITE;
        Map<String, String> hash = readWrite
                ? Map.of("mode", kind == LockKind.READ ? "read" : "write", uuid + ":7", "2", uuid + ":7:write", "1")
                : Map.of(uuid + ":7", "2", "8c1f0e2a-3b4d-4c5e-9f60-7a8b9c0d1e2f:-3", "1");
        if (kind == LockKind.READ) {
            hash = Map.of("mode", "read", uuid + ":7", "2", "8C1F0E2A-3B4D-4C5E-9F60-7A8B9C0D1E2F:12", "1");
        }
        raw.sync().hset(name, hash);
        raw.sync().pexpire(name, 30_000);
        assertThat(a.inspect(name).holders()).hasSize(2);
        assertThat(a.getLock(kind, name).forceUnlock()).isTrue();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void fairAndReadWriteLocksRefuseANameThatIsOneWholeHashTag(LockClient a) {
        assertThatThrownBy(() -> a.getFairLock("{orders}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'{orders}'").hasMessageContaining("'orders'");
        assertThatThrownBy(() -> a.getReadWriteLock("{orders}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'{orders}'");
        // the kinds whose keys stay their own accept it, as Redisson does
        DistributedLock plain = a.getLock("{orders}");
        plain.lock();
        assertThat(raw.hgetall("{orders}")).hasSize(1);
        plain.unlock();
        assertThat(a.getFencedLock("{orders}").tryLock()).isTrue();
        a.getFencedLock("{orders}").unlock();
        assertThat(a.getFairLock("orders:{1}")).isNotNull();
    }
}
