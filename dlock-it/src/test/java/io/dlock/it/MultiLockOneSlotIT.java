package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.MultiLock;
import io.dlock.it.support.Workers;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MultiLockIT} over names that share one hash slot ({@code {…}:a}, {@code {…}:b}, {@code {…}:c}): a multi-lock
 * of plain members is then taken in one script, all members or none, never part of them while it waits. Every test of
 * {@link MultiLockIT} runs again on such names (those with fair or read-write members still take them one by one);
 * the tests here check what only the one-script acquisition promises.
 */
class MultiLockOneSlotIT extends MultiLockIT {

    @Override
    String memberName(String base, String suffix) {
        return "{" + base + "}:" + suffix;
    }

    @Override
    boolean oneScript() {
        return true;
    }

    @Test
    void anUncontendedAcquisitionIsOneScriptCall(LockClient client) throws Exception {
        assertThat(List.of(SlotHash.getSlot(b), SlotHash.getSlot(c))).containsOnly(SlotHash.getSlot(a));
        MultiLock multi = client.getMultiLock(client.getLock(c), client.getLock(a), client.getLock(b));
        multi.lock(); // warms the script cache
        multi.unlock();

        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        client.addEventListener(new io.dlock.LockEventListener() {
            @Override
            public Acquisition acquisitionStarted(io.dlock.LockKind kind, String lockName, long ownerId) {
                return new Acquisition() {
                    @Override
                    public void ended(Outcome outcome, Throwable failure) {
                        events.add(lockName + " " + outcome);
                    }
                };
            }
        });
        long before = raw.scriptCalls();
        multi.lock();
        io.dlock.redisprocess.Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(events)
                .as("each member's acquisition is reported as if taken alone")
                .containsExactlyInAnyOrder(a + " ACQUIRED", b + " ACQUIRED", c + " ACQUIRED"));
        assertThat(raw.scriptCalls() - before).as("one script takes the three members").isEqualTo(1);
        assertThat(raw.exists(a) && raw.exists(b) && raw.exists(c)).isTrue();
        assertThat(multi.getHoldCount()).isEqualTo(1);
        assertThat(client.heldLocks()).hasSize(3);
        multi.unlock();
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
    }

    @Test
    void whileItWaitsNoMemberIsHeldAndAReleaseWakesIt(LockClient client, LockClient other) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b), client.getLock(c));
        DistributedLock blocker = other.getLock(c);
        blocker.lock(); // watchdog lease: 30 s, far beyond the wait below
        Future<Long> waiter = workers.submit(() -> {
            long start = System.nanoTime();
            assertThat(multi.tryLock(20, SECONDS)).isTrue();
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            multi.unlock();
            return tookMs;
        });
        for (int i = 0; i < 10; i++) {
            Thread.sleep(50);
            assertThat(raw.exists(a) || raw.exists(b)).as("no member is held while c is awaited").isFalse();
        }
        blocker.unlock();
        assertThat(Workers.get(waiter, Duration.ofSeconds(20))).as("woken by c's unlock message, not its TTL")
                .isLessThan(5_000);
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
    }

    @Test
    void aReentryThatFindsAMemberGoneTakesNothing(LockClient client, LockClient other) {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        multi.lock();
        assertThat(other.getLock(b).forceUnlock()).isTrue();
        assertThatThrownBy(multi::lock).isInstanceOf(LockLostException.class).hasMessageContaining(b);
        assertThat(raw.sync().hvals(a)).as("a's count unchanged: the script took nothing").containsExactly("1");
        assertThat(raw.exists(b)).as("the removed hold is not re-created").isFalse();
        client.getLock(a).unlock();
        assertThat(raw.exists(a)).isFalse();
    }

    @Test
    void anInterruptedWaitLeavesNothingBehind(LockClient client, LockClient other) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        DistributedLock blocker = other.getLock(a);
        blocker.lock();
        CountDownLatch started = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            started.countDown();
            try {
                multi.lockInterruptibly();
                multi.unlock();
            } catch (InterruptedException expected) {
                Thread.currentThread().interrupt();
            }
        });
        thread.start();
        started.await();
        Thread.sleep(300);
        thread.interrupt();
        thread.join(10_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(raw.exists(b)).isFalse();
        blocker.unlock();
        io.dlock.redisprocess.Await.during(Duration.ofMillis(500), () -> !raw.exists(a) && !raw.exists(b),
                "nothing taken after the interrupt");
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void asyncWaitCancelledTakesNothing(LockClient client, LockClient other) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        DistributedLock blocker = other.getLock(b);
        blocker.lock();
        MultiLock byOwner = multi.as(client.newOwner());
        CompletableFuture<Boolean> waiting = byOwner.tryLockAsync(-1, -1, MILLISECONDS);
        Thread.sleep(200);
        waiting.cancel(false);
        blocker.unlock();
        io.dlock.redisprocess.Await.during(Duration.ofMillis(500), () -> !raw.exists(a) && !raw.exists(b),
                "nothing taken after the cancellation");
        assertThat(byOwner.tryLockAsync(0, -1, MILLISECONDS).get(5, SECONDS)).isTrue();
        byOwner.unlockAsync().get(5, SECONDS);
    }

    /**
     * Owners of one client acquiring the same members take turns inside the client: one waits in Redis, the others
     * in line; one whose wait ends in line leaves it with nothing sent, and the line goes on.
     */
    @Test
    void ownersOfOneClientTakeTurnsAndOneTimedOutInLineLeavesIt(LockClient client, LockClient other)
            throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        DistributedLock blocker = other.getLock(a);
        blocker.lock();
        Future<Boolean> first = workers.submit(() -> {
            boolean held = multi.tryLock(20, SECONDS);
            if (held) {
                multi.unlock();
            }
            return held;
        });
        awaitWaiting(client, a, "the first owner waits");
        awaitScriptCallsSettle("the first owner's attempts"); // it waits in Redis now
        long before = raw.scriptCalls();
        assertThat(workers.call(Duration.ofSeconds(10), () -> multi.tryLock(300, MILLISECONDS)))
                .as("out of time in line").isFalse();
        assertThat(raw.scriptCalls() - before).as("nothing sent while in line").isZero();
        Future<Boolean> third = workers.submit(() -> {
            boolean held = multi.tryLock(20, SECONDS);
            if (held) {
                multi.unlock();
            }
            return held;
        });
        Thread.sleep(200);
        blocker.unlock();
        assertThat(Workers.get(first, Duration.ofSeconds(20))).isTrue();
        assertThat(Workers.get(third, Duration.ofSeconds(20))).as("the line goes on").isTrue();
        assertThat(raw.exists(a) || raw.exists(b)).isFalse();
    }

    /** Overlapping groups from two clients: never two owners inside one name, and every round completes. */
    @Test
    void overlappingGroupsFromTwoClientsExcludeEachOther(LockClient one, LockClient two) throws Exception {
        String[][] groups = {{a, b}, {b, c}, {c, a}, {a, b, c}};
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        List<Future<Void>> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            LockClient client = t % 2 == 0 ? one : two;
            String[] group = groups[t % groups.length];
            threads.add(workers.submit(() -> {
                List<DistributedLock> locks = new ArrayList<>();
                for (String name : group) {
                    locks.add(client.getLock(name));
                }
                MultiLock multi = client.getMultiLock(locks);
                for (int i = 0; i < 20; i++) {
                    multi.lock();
                    try {
                        for (String name : group) {
                            if (inside[index(name)].incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                        }
                        Thread.sleep(1);
                        for (String name : group) {
                            inside[index(name)].decrementAndGet();
                        }
                    } finally {
                        multi.unlock();
                    }
                    rounds.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<Void> thread : threads) {
            Workers.get(thread, Duration.ofSeconds(60));
        }
        assertThat(rounds.get()).isEqualTo(8 * 20);
        assertThat(overlaps.get()).isZero();
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
    }

    private int index(String name) {
        return name.equals(a) ? 0 : name.equals(b) ? 1 : 2;
    }
}
