package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockKind;
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
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

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
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(LockException.class).hasMessageContaining(name)
                .hasMessageContaining("WRONGTYPE");
        assertThat(raw.sync().get(name)).isEqualTo("precious");
        assertThat(raw.pttl(name)).as("no TTL was added either").isEqualTo(-1L);
        assertThatThrownBy(() -> lock.forceUnlockAsync().get(5, SECONDS)).hasCauseInstanceOf(LockException.class);
        assertThat(raw.sync().get(name)).isEqualTo("precious");

        raw.sync().del(name);
        raw.sync().rpush(name, "a", "b");
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(LockException.class).hasMessageContaining(name);
        assertThat(raw.sync().lrange(name, 0, -1)).isEqualTo(List.of("a", "b"));
        raw.sync().del(name);

        // a real lock is still removed
        lock.lock();
        assertThat(a.getLock(kind, name).forceUnlock()).isTrue();
        assertThat(raw.exists(name)).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
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
