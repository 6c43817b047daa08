package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lock contract for {@link LockClient#getLock(String)}, plus the plain lock's own wire details: the unlock
 * notification on {@code redisson_lock__channel:{NAME}}.
 */
class ReentrantLockContractIT extends AbstractLockContractIT {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getLock(name);
    }

    @Test
    void onlyTheLastUnlockPublishesZeroOnTheLockChannel(LockClient a) throws InterruptedException {
        DistributedLock lock = on(a);
        try (RawRedis.Subscription channel = raw.subscribe(RawRedis.lockChannel(name))) {
            lock.lock();
            lock.lock();
            lock.unlock();
            Await.during(Duration.ofMillis(200), () -> channel.messages().isEmpty(),
                    () -> "a partial unlock published " + channel.messages());
            lock.unlock();
            assertThat(channel.messages().poll(2, SECONDS)).as("message of the last unlock").isEqualTo("0");

            lock.lock(30, SECONDS);
            assertThat(lock.forceUnlock()).isTrue();
            assertThat(channel.messages().poll(2, SECONDS)).as("message of forceUnlock").isEqualTo("0");
            assertThat(lock.forceUnlock()).isFalse();
            Await.during(Duration.ofMillis(200), () -> channel.messages().isEmpty(),
                    () -> "forceUnlock of a free lock published " + channel.messages());
        }
    }

    /** Lettuce reconnects and subscribes again; the waiter then hears the release at once, not at its 60 s bound. */
    @Test
    void aWaiterSubscribesAgainWhenItsPubSubConnectionDrops(LockClient a, LockClient b) {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        Future<Long> waiter = workers.submit(() -> {
            lock.lock();
            long acquiredAt = System.nanoTime();
            lock.unlock();
            return acquiredAt;
        });
        Leaks.awaitWaiters(b, 1);
        String channel = RawRedis.lockChannel(name);
        Await.until(Leaks.SETTLE, () -> raw.subscribers(channel) == 1, "the waiter subscribes");
        Set<String> before = raw.pubSubConnectionIds();

        raw.killPubSubConnections();
        Await.until(Leaks.SETTLE, () -> raw.subscribers(channel) == 1
                        && Collections.disjoint(before, raw.pubSubConnectionIds()),
                () -> "the waiter's client should subscribe again on a new connection; channels: " + raw.channels());
        assertThat(waiter.isDone()).as("the waiter still waits").isFalse();

        long released = System.nanoTime();
        holder.unlock();
        assertThat(Duration.ofNanos(Workers.get(waiter, Duration.ofSeconds(5)) - released).toMillis())
                .as("ms until the waiter had the lock").isLessThan(WAKE_UP_MS);
        assertFreeOnWire(name);
    }

    @Test
    void aWaiterListensOnTheLockChannel(LockClient a, LockClient b) {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        Future<Long> waiter = workers.submit(() -> {
            assertThat(lock.tryLock(20, 5, TimeUnit.SECONDS)).isTrue();
            long acquiredAt = System.nanoTime();
            lock.unlock();
            return acquiredAt;
        });
        Leaks.awaitWaiters(b, 1);
        String channel = RawRedis.lockChannel(name);
        Await.until(Leaks.SETTLE, () -> raw.subscribers(channel) == 1,
                () -> "subscribers of " + channel + ", channels: " + raw.channels());

        // the holder vanishes and somebody else (Redisson, a script) publishes the notification: it must wake up
        raw.sync().del(name);
        long t0 = System.nanoTime();
        raw.sync().publish(channel, "0");
        long acquiredAt = Workers.get(waiter, Duration.ofSeconds(5));
        assertThat(Duration.ofNanos(acquiredAt - t0).toMillis()).as("ms until the waiter had the lock")
                .isLessThan(WAKE_UP_MS);
        Await.until(Leaks.SETTLE, () -> raw.subscribers(channel) == 0,
                "the waiter should unsubscribe once it holds the lock");
        assertFreeOnWire(name);
        // the holder's hold was deleted behind its back: its unlock must fail
        assertThatThrownBy(holder::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }
}
