package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.it.support.HandOffs;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.LocalQueues;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
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
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Local hand-offs of the fair lock: when its holder releases and the first waiter in the Redis queue is an owner of the
 * same client that waits inside the client, the release script gives it the lock in the same call (no message, no
 * attempt of its own), leaving what that waiter's own acquisition would have left. The queue still decides: a Redisson
 * waiter (or another client's) that queued between two local waiters gets its turn in order and its wake-up; a
 * hand-off whose reply is lost leaves nobody believing in a lock Redis gave to another, and nobody stranded.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = FairHandoffIT.WATCHDOG_MS, commandTimeoutMillis = FairHandoffIT.COMMAND_MS,
        fairLockWaitTimeoutMillis = FairHandoffIT.SLOT_MS)
@Timeout(value = 60, unit = SECONDS)
class FairHandoffIT {
    static final int WATCHDOG_MS = 6000;
    static final int COMMAND_MS = 250;
    /** Long enough that no local waiter refreshes its place (every third of it) while a test runs. */
    static final int SLOT_MS = 60_000;
    private static final long HOLD_MS = 20;
    private static final long HOLDER = 7_000_001;
    private static final long WAITER = 7_000_002;

    private String name;
    private RawRedis raw;
    private Workers workers;
    private RedissonClient redisson;
    private final List<String> order = Collections.synchronizedList(new ArrayList<>());
    private final List<Future<?>> waiters = new ArrayList<>();
    private final AtomicLong inside = new AtomicLong();
    private final AtomicLong maxInside = new AtomicLong();

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:FairHandoffIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("fair-handoff");
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
            if (redisson != null) {
                redisson.shutdown(0, 5, SECONDS);
            }
        } finally {
            raw.close();
        }
    }

    private RedissonClient redisson(RedisServer server) {
        redisson = Redissons.connect(server, WATCHDOG_MS);
        return redisson;
    }

    private List<String> queue() {
        return raw.sync().lrange("redisson_lock_queue:{" + name + "}", 0, -1);
    }

    /**
     * Starts a thread that takes {@code lock}, notes {@code label}, holds it {@link #HOLD_MS} and releases it; returns
     * once the waiter stands in the Redis queue.
     */
    private void queueWaiter(String label, String clientId, Lock lock) {
        CompletableFuture<Long> thread = new CompletableFuture<>();
        waiters.add(workers.submit(() -> {
            thread.complete(Thread.currentThread().getId());
            lock.lock();
            try {
                long now = inside.incrementAndGet();
                maxInside.accumulateAndGet(now, Math::max);
                order.add(label);
                Thread.sleep(HOLD_MS);
                inside.decrementAndGet();
            } finally {
                lock.unlock();
            }
            return null;
        }));
        String field = clientId + ":" + thread.join();
        Await.until(Leaks.SETTLE, () -> queue().contains(field), () -> field + " should be queued: " + queue());
    }

    private void awaitAllWaiters() {
        for (Future<?> waiter : waiters) {
            Workers.get(waiter, Duration.ofSeconds(20));
        }
    }

    private void assertNothingLeft(LockClient... clients) {
        for (LockClient client : clients) {
            Leaks.assertClientIdle(client);
            LocalQueues.assertNoCohorts(client);
        }
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
        Leaks.assertNoSubscriptions(raw);
    }

    @Test
    void localWaitersAreHandedTheLockInQueueOrderAndARedissonWaiterBetweenThemKeepsItsTurn(
            RedisServer server, LockClient a, LockClient b) {
        RedissonClient theirs = redisson(server);
        AtomicInteger handOffsOfA = HandOffs.countedFor(a);
        DistributedLock holder = a.getFairLock(name);
        holder.lock();
        queueWaiter("a1", a.getId(), a.getFairLock(name));
        queueWaiter("a2", a.getId(), a.getFairLock(name));
        queueWaiter("redisson", theirs.getId(), theirs.getFairLock(name));
        queueWaiter("a3", a.getId(), a.getFairLock(name));
        queueWaiter("b1", b.getId(), b.getFairLock(name));
        queueWaiter("a4", a.getId(), a.getFairLock(name));
        LocalQueues.awaitQueued(a, name, 4);

        holder.unlock();
        awaitAllWaiters();
        assertThat(order).containsExactly("a1", "a2", "redisson", "a3", "b1", "a4");
        assertThat(maxInside.get()).as("most owners inside at once").isEqualTo(1);
        // holder -> a1 and a1 -> a2 inside client a; a2's release wakes Redisson, whose release wakes a3, and so on
        assertThat(handOffsOfA.get()).as("hand-offs inside client a").isEqualTo(2);
        assertNothingLeft(a, b);
    }

    @Test
    void eachHandOffBetweenOwnersOfOneClientIsOneScriptCall(LockClient a) {
        DistributedLock holder = a.getFairLock(name);
        // every script once: a first EVALSHA the server does not know costs a second call (NOSCRIPT, then EVAL)
        holder.lock();
        queueWaiter("warm-up", a.getId(), a.getFairLock(name));
        LocalQueues.awaitQueued(a, name, 1);
        holder.unlock();
        awaitAllWaiters();
        waiters.clear();
        order.clear();
        holder.lock();
        for (int i = 0; i < 3; i++) {
            queueWaiter("a" + i, a.getId(), a.getFairLock(name));
        }
        LocalQueues.awaitQueued(a, name, 3);
        long scriptsBefore = raw.scriptCalls();
        holder.unlock();
        awaitAllWaiters();
        assertThat(order).containsExactly("a0", "a1", "a2");
        assertThat(raw.scriptCalls() - scriptsBefore).as("script calls from the holder's unlock to the last one's")
                .isEqualTo(4); // three hand-offs and the last release; no waiter attempted
        assertNothingLeft(a);
    }

    /**
     * Loads the fair scripts into the server: an EVALSHA whose reply is lost to a server that did not know the script
     * never runs (NOSCRIPT, and the client does not retry a release), which is not the case these tests are about.
     */
    private static void loadScripts(DistributedLock lock) {
        lock.lock();
        lock.unlock();
    }

    @Test
    void aHandOffWhoseReplyIsLostLeavesTheLockWithTheReceiverAlone(RedisServer server, LockClient a)
            throws Exception {
        DistributedLock releasing = a.getFairLock(name).as(LockOwner.of(HOLDER));
        DistributedLock receiving = a.getFairLock(name).as(LockOwner.of(WAITER));
        loadScripts(releasing);
        releasing.lock();
        CompletableFuture<Void> waiting = receiving.lockAsync(LEASE_WATCHDOG, MILLISECONDS);
        LocalQueues.awaitQueued(a, name, 1);
        String receiver = RawRedis.field(a.getId(), WAITER);

        server.pause();
        CompletableFuture<Void> unlock;
        try {
            unlock = releasing.unlockAsync();
            Thread.sleep(3L * COMMAND_MS); // the hand-off times out on the client and waits in the socket
        } finally {
            server.resume();
        }
        assertThatThrownBy(() -> unlock.get(5, SECONDS)).hasCauseInstanceOf(LockException.class)
                .hasMessageContaining("unknown");
        waiting.get(10, SECONDS);
        assertThat(raw.hgetall(name)).as("the receiver alone holds the lock, once").isEqualTo(Map.of(receiver, "1"));
        assertThat(releasing.isHeldByCurrentThread()).as("the releaser believes in no hold").isFalse();
        assertThat(receiving.isHeldByCurrentThread()).isTrue();
        assertThat(queue()).as("the receiver left the queue").isEmpty();

        receiving.unlock();
        assertThat(raw.exists(name)).isFalse();
        assertNothingLeft(a);
    }

    @Test
    void aHandOffWhoseReplyIsLostToAWaiterThatThenGivesUpLeavesNothingHeld(RedisServer server, LockClient a)
            throws Exception {
        DistributedLock releasing = a.getFairLock(name).as(LockOwner.of(HOLDER));
        DistributedLock receiving = a.getFairLock(name).as(LockOwner.of(WAITER));
        loadScripts(releasing);
        releasing.lock();
        CompletableFuture<Boolean> waiting = receiving.tryLockAsync(1500, LEASE_WATCHDOG, MILLISECONDS);
        LocalQueues.awaitQueued(a, name, 1);

        server.pause();
        CompletableFuture<Void> unlock;
        try {
            unlock = releasing.unlockAsync();
            Thread.sleep(3L * COMMAND_MS);
            waiting.cancel(false); // the receiver's caller gives up while the hand-off's outcome is unknown
        } finally {
            server.resume();
        }
        assertThatThrownBy(() -> unlock.get(5, SECONDS)).hasCauseInstanceOf(LockException.class);
        Await.until(Leaks.SETTLE, () -> !raw.exists(name), () -> "the lock should be free: " + raw.hgetall(name));
        assertNothingLeft(a);
    }

    /**
     * A fair waiter's channel is its own, so each wait would subscribe and unsubscribe it: it stays subscribed a
     * while after the wait instead (WakeupHub#joinLingering), and the owner's next waits in that time cost no
     * (un)subscribe. It is let go once unused.
     */
    @Test
    void anOwnerWaitingAgainSoonKeepsItsChannelSubscribed(LockClient a, LockClient b) {
        DistributedLock holder = b.getFairLock(name);
        DistributedLock waiter = a.getFairLock(name).as(LockOwner.of(WAITER));
        String field = a.getId() + ":" + WAITER;
        long subscribesBefore = raw.commandCalls("subscribe");
        long unsubscribesBefore = raw.commandCalls("unsubscribe");
        for (int round = 0; round < 5; round++) {
            holder.lock();
            Future<?> waiting = workers.submit(() -> {
                waiter.lock();
                waiter.unlock();
                return null;
            });
            Await.until(Leaks.SETTLE, () -> queue().contains(field), () -> field + " should be queued: " + queue());
            holder.unlock();
            Workers.get(waiting, Duration.ofSeconds(10));
        }
        assertThat(raw.commandCalls("subscribe") - subscribesBefore).as("SUBSCRIBE over five waits of one owner")
                .isEqualTo(1);
        assertThat(raw.commandCalls("unsubscribe") - unsubscribesBefore).as("UNSUBSCRIBE while it waits again soon")
                .isZero();
        assertNothingLeft(a, b);
    }

    /**
     * Two owners of client a wait while client b holds the lock, so neither could wait behind an owner of its own
     * client: both sleep on their channels with their places in the Redis queue. When the first is granted the lock,
     * the second is woken to wait behind it inside the client (LocalGate#sleepingOnChannel), so the first one's
     * release hands it the lock in one script call instead of publishing to its channel for it to attempt again.
     */
    @Test
    void aWaiterSleepingOnItsChannelMovesBehindAnOwnerOfItsClientThatGetsTheLock(LockClient a, LockClient b) {
        AtomicInteger handOffsOfA = HandOffs.countedFor(a);
        DistributedLock holder = b.getFairLock(name);
        holder.lock();
        queueWaiter("a1", a.getId(), a.getFairLock(name));
        queueWaiter("a2", a.getId(), a.getFairLock(name));
        long publishes = raw.commandCalls("publish");
        holder.unlock();
        awaitAllWaiters();
        assertThat(order).containsExactly("a1", "a2");
        assertThat(handOffsOfA.get()).as("a1's release handed the lock to a2 inside client a").isEqualTo(1);
        assertThat(raw.commandCalls("publish") - publishes).as("only b's release published (to a1's channel)")
                .isEqualTo(1);
        assertThat(maxInside.get()).isEqualTo(1);
        assertNothingLeft(a, b);
    }
}
