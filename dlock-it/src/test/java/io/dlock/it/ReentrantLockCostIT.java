package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the plain lock costs Redis, read from {@code INFO commandstats}: an uncontended acquire + release is two
 * script calls and nothing else; waiters of one client share one subscription; one unlock sends one waiter, not all
 * of them, back to Redis.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReentrantLockCostIT {
    private RawRedis raw;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void connect(RedisServer server) {
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        raw.close();
    }

    /** Calls per command since the last reset, leaving out the commands this test itself uses to look. */
    private Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : raw.sync().info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (command.equals("info") || command.startsWith("config")) {
                continue;
            }
            String calls0 = line.substring(line.indexOf("calls=") + 6);
            calls.put(command, Long.parseLong(calls0.substring(0, calls0.indexOf(','))));
        }
        return calls;
    }

    private void resetStats() {
        raw.sync().configResetstat();
    }

    @Test
    void uncontendedLockAndUnlockAreTwoScriptCallsAndNothingElse(LockClient client) {
        DistributedLock lock = client.getLock("cost:uncontended");
        lock.lock();
        lock.unlock();
        resetStats();

        lock.lock();
        lock.unlock();

        Map<String, Long> calls = commandCalls();
        // commandstats also counts the commands a script runs; those are the scripts' own business.
        assertThat(calls.get("evalsha")).isEqualTo(2L);
        assertThat(calls.keySet()).as("nothing but the two script calls and what runs inside them")
                .isSubsetOf(Set.of("evalsha", "exists", "hget", "hgetall", "hexists", "hset", "hincrby", "pexpire",
                        "del", "publish", "type")); // type: the wrong_type guard of the acquire script
    }

    @Test
    void waitersOfOneClientShareOneSubscriptionAndOneUnlockWakesOne(LockClient holderClient, LockClient waiterClient)
            throws Exception {
        String name = "cost:waiters";
        DistributedLock holder = holderClient.getLock(name);
        holder.lock(60, TimeUnit.SECONDS);
        DistributedLock lock = waiterClient.getLock(name);
        AtomicInteger acquired = new AtomicInteger();
        List<Future<?>> waiters = new ArrayList<>();
        int count = 4;
        for (int i = 0; i < count; i++) {
            waiters.add(threads.submit(() -> {
                lock.lock(60, TimeUnit.SECONDS);
                acquired.incrementAndGet();
                return null;
            }));
        }
        String channel = RawRedis.lockChannel(name);
        Await.until(Duration.ofSeconds(5), () -> raw.subscribers(channel) == 1
                && waiterStats(waiterClient).waiters() == count, "all waiters asleep on one subscription");
        assertThat(raw.subscribers(channel)).isEqualTo(1);
        // Let every waiter finish its post-subscription attempt before counting.
        Await.until(Duration.ofSeconds(5), () -> {
            Map<String, Long> before = commandCalls();
            Thread.sleep(100);
            return before.equals(commandCalls());
        }, "waiters settle");
        resetStats();

        holder.unlock();
        Await.until(Duration.ofSeconds(2), () -> acquired.get() == 1, "one waiter acquires promptly");
        Await.during(Duration.ofMillis(300), () -> acquired.get() == 1, "only one waiter holds");

        assertThat(commandCalls().get("evalsha")).as("unlock + the attempt of the one woken waiter")
                .isEqualTo(2L);
        // The holders stay with their 60 s leases: release them one by one to end the test.
        for (int released = 1; released < count; released++) {
            int expected = released + 1;
            forceNext(lock);
            Await.until(Duration.ofSeconds(2), () -> acquired.get() == expected, "next waiter woken");
        }
        lock.forceUnlock();
        for (Future<?> waiter : waiters) {
            waiter.get(5, TimeUnit.SECONDS);
        }
        Await.until(Duration.ofSeconds(2), () -> raw.channels().isEmpty(), "subscription dropped");
    }

    private static void forceNext(DistributedLock lock) {
        lock.forceUnlock();
    }

    private static io.dlock.internal.client.Diagnostics waiterStats(LockClient client) {
        return ((io.dlock.internal.client.RedisLockClient) client).diagnostics();
    }
}
