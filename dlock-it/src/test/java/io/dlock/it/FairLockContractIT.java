package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.ClientSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lock contract for {@link LockClient#getFairLock(String)}, plus the fair lock's own wire details: the queue and
 * deadline keys exist only while somebody waits, and wake-ups go to the first waiter's own channel only.
 */
class FairLockContractIT extends AbstractLockContractIT {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getFairLock(name);
    }

    static String queueKey(String name) {
        return "redisson_lock_queue:{" + name + "}";
    }

    static String timeoutKey(String name) {
        return "redisson_lock_timeout:{" + name + "}";
    }

    static String waiterChannel(String name, String field) {
        return RawRedis.lockChannel(name) + ":" + field;
    }

    /** Free means no hash, and (once give-ups have landed) no queue and no deadlines either. */
    @Override
    protected void assertFreeOnWire(String name) {
        super.assertFreeOnWire(name);
        Await.until(Leaks.SETTLE, () -> !raw.exists(queueKey(name)) && !raw.exists(timeoutKey(name)),
                () -> "fair-lock keys left while nobody waits: queue=" + raw.sync().lrange(queueKey(name), 0, -1)
                        + " timeouts=" + raw.sync().zrangeWithScores(timeoutKey(name), 0, -1));
    }

    @Test
    void aWaiterQueuesAndIsWokenOnItsOwnChannelOnly(LockClient a, LockClient b) {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        long[] waiterThread = new long[1];
        Future<Long> waiter = workers.submit(() -> {
            waiterThread[0] = tid();
            lock.lock();
            long acquiredAt = System.nanoTime();
            lock.unlock();
            return acquiredAt;
        });
        Leaks.awaitWaiters(b, 1);
        Await.until(Leaks.SETTLE, () -> raw.sync().llen(queueKey(name)) == 1, "the waiter should queue");
        String field = ownerField(b, waiterThread[0]);
        assertThat(raw.sync().lrange(queueKey(name), 0, -1)).containsExactly(field);
        assertThat(raw.sync().zscore(timeoutKey(name), field)).as("the waiter's deadline").isNotNull();
        String channel = waiterChannel(name, field);
        Await.until(Leaks.SETTLE, () -> raw.subscribers(channel) == 1,
                () -> "the waiter should listen on " + channel + "; channels: " + raw.channels());
        assertThat(raw.subscribers(RawRedis.lockChannel(name))).as("nobody needs the plain lock's channel").isZero();

        try (RawRedis.Subscription plain = raw.subscribe(RawRedis.lockChannel(name))) {
            long t0 = System.nanoTime();
            holder.unlock();
            long acquiredAt = Workers.get(waiter, Duration.ofSeconds(5));
            assertThat(Duration.ofNanos(acquiredAt - t0).toMillis()).as("ms until the waiter had the lock")
                    .isLessThan(WAKE_UP_MS);
            Await.during(Duration.ofMillis(200), () -> plain.messages().isEmpty(),
                    () -> "a fair unlock published on the plain channel: " + plain.messages());
        }
        assertFreeOnWire(name);
    }

    @Test
    @ClientSettings(fairLockWaitTimeoutMillis = 1500)
    void tryLockWithoutWaitNeverQueuesAndDoesNotJumpTheQueue(LockClient a, LockClient b) throws Exception {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(0, 5, SECONDS)).isFalse();
        assertThat(raw.exists(queueKey(name))).as("a single attempt queued").isFalse();

        // somebody waits; the lock becomes free for an instant: a newcomer's single attempt must not take it
        Future<Boolean> waiter = workers.submit(() -> {
            // a waiter's sleeps are capped at a third of its slot (1.5 s), so it notices the free lock within 0.5 s
            boolean got = lock.tryLock(3, SECONDS);
            Thread.sleep(300);
            lock.unlock();
            return got;
        });
        Await.until(Leaks.SETTLE, () -> raw.sync().llen(queueKey(name)) == 1, "the waiter should queue");
        // the holder's hold vanishes without a wake-up (as if its lease ran out): the waiter is still asleep
        raw.sync().del(name);
        DistributedLock newcomer = on(a);
        assertThat(workers.call(TASK_BOUND, () -> newcomer.tryLock())).as("a newcomer ahead of the queue").isFalse();
        assertThat(Workers.get(waiter, Duration.ofSeconds(10))).isTrue();
        assertFreeOnWire(name);
        assertThatThrownBy(holder::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void unlockOfAFreeFairLockThrows(LockClient a) {
        DistributedLock lock = on(a);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
        assertThat(Workers.failureOf(lock.unlockAsync(), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(raw.keys()).isEmpty();
    }

    @Test
    void forceUnlockWakesTheHeadOnItsChannel(LockClient a, LockClient b) throws Exception {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        Future<Boolean> first = workers.submit(() -> {
            boolean got = lock.tryLock(20_000, 60_000, MILLISECONDS);
            return got;
        });
        Await.until(Leaks.SETTLE, () -> raw.sync().llen(queueKey(name)) == 1, "the waiter should queue");
        List<String> queue = raw.sync().lrange(queueKey(name), 0, -1);
        try (RawRedis.Subscription head = raw.subscribe(waiterChannel(name, queue.get(0)))) {
            assertThat(on(a).forceUnlock()).isTrue();
            assertThat(head.messages().poll(2, SECONDS)).as("message to the head").isEqualTo("0");
        }
        assertThat(Workers.get(first, Duration.ofSeconds(5))).isTrue();
        assertThat(lock.forceUnlock()).isTrue();
        Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(b).trackedHolds() == 0, "force-unlocked hold forgotten");
        assertFreeOnWire(name);
    }

    @Test
    void theQueueKeysAreThoseOfRedissonForHashTaggedNames(LockClient a, LockClient b) {
        String tagged = "it:{fair}:tagged";
        DistributedLock holder = on(a, tagged);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b, tagged);
        Future<Boolean> waiter = workers.submit(() -> lock.tryLock(10, TimeUnit.SECONDS) && unlock(lock));
        Await.until(Leaks.SETTLE, () -> raw.sync().llen("redisson_lock_queue:" + tagged) == 1,
                () -> "queue under redisson_lock_queue:" + tagged + "; keys " + raw.keys());
        assertThat(raw.sync().zcard("redisson_lock_timeout:" + tagged)).isEqualTo(1);
        holder.unlock();
        assertThat(Workers.get(waiter, Duration.ofSeconds(5))).isTrue();
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }

    private static boolean unlock(DistributedLock lock) {
        lock.unlock();
        return true;
    }
}
