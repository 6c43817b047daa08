package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock contract for the write side of {@link LockClient#getReadWriteLock(String)}, with its wire layout: the hash
 * holds {@code mode = write} and the writer field {@code <client id>:<owner id>:write}; releases publish {@code 1} on
 * {@code redisson_rwlock:{NAME}}.
 */
class WriteLockContractIT extends AbstractLockContractIT {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getReadWriteLock(name).writeLock();
    }

    @Override
    protected String ownerField(LockClient client, long ownerId) {
        return RawRedis.field(client.getId(), ownerId) + ":write";
    }

    @Override
    protected void assertHeldOnWire(String name, LockClient client, long ownerId, int holds) {
        Map<String, String> hash = raw.hgetall(name);
        assertThat(hash).as("hash %s", name)
                .isEqualTo(Map.of("mode", "write", ownerField(client, ownerId), Integer.toString(holds)));
        assertThat(raw.pttl(name)).as("PTTL %s", name).isPositive();
    }

    @Test
    void releasesPublishOneOnTheReadWriteChannel(LockClient a) throws InterruptedException {
        DistributedLock lock = on(a);
        try (RawRedis.Subscription channel = raw.subscribe("redisson_rwlock:{" + name + "}")) {
            lock.lock();
            lock.lock();
            lock.unlock();
            Await.during(Duration.ofMillis(200), () -> channel.messages().isEmpty(),
                    () -> "a partial unlock published " + channel.messages());
            lock.unlock();
            assertThat(channel.messages().poll(2, SECONDS)).as("message of the last unlock").isEqualTo("1");

            lock.lock(30, SECONDS);
            assertThat(lock.forceUnlock()).isTrue();
            assertThat(channel.messages().poll(2, SECONDS)).as("message of forceUnlock").isEqualTo("1");
            assertThat(lock.forceUnlock()).isFalse();
            Await.during(Duration.ofMillis(200), () -> channel.messages().isEmpty(),
                    () -> "forceUnlock of a free lock published " + channel.messages());
        }
        assertFreeOnWire(name);
    }

    @Test
    void reentryResetsTheTtlInsteadOfAddingToIt(LockClient a) {
        DistributedLock lock = on(a);
        lock.lock(10, SECONDS);
        lock.lock(10, SECONDS);
        assertThat(raw.pttl(name)).as("Redisson would have ~20 s here").isBetween(9000L, 10_000L);
        lock.unlock();
        lock.unlock();
        assertFreeOnWire(name);
    }
}
