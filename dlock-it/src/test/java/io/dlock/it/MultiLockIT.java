package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.MultiLock;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.it.support.Subscribers;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisTopology;
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
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The multi-lock: all or nothing, one global order (no deadlock between opposite orders), an unlock that releases
 * every member whatever fails, leases and the watchdog as for one lock, bad input, and mutual exclusion with
 * Redisson 4.7's {@code RedissonMultiLock} over the same names.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class MultiLockIT {
    String a;
    String b;
    String c;
    RawRedis raw;
    RedissonClient redisson;
    Workers workers;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        String base = "it:" + getClass().getSimpleName() + ":" + info.getTestMethod().orElseThrow().getName();
        a = memberName(base, "a");
        b = memberName(base, "b");
        c = memberName(base, "c");
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("multi-worker");
        redisson = Redissons.connect(topology, 30_000);
    }

    /** @return the name of member {@code suffix}: here on its own hash slot, so plain members are taken one by one */
    String memberName(String base, String suffix) {
        return base + ":" + suffix;
    }

    /** @return whether a multi-lock of plain members over {@link #a}, {@link #b}, {@link #c} takes them in one script */
    boolean oneScript() {
        return false;
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
            redisson.shutdown(0, 5, SECONDS);
        } finally {
            raw.close();
        }
    }

    @Test
    void allOrNothing(LockClient client, LockClient other) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(c), client.getFairLock(b), client.getLock(a));
        assertThat(multi.members()).extracting(DistributedLock::getName).containsExactly(a, b, c);
        assertThat(multi.getName()).isEqualTo("MultiLock[" + a + ", " + b + "(FAIR), " + c + "]");

        DistributedLock blocker = other.getFairLock(b);
        blocker.lock();
        assertThat(multi.tryLock(300, MILLISECONDS)).isFalse();
        // given back before tryLock returns while Redis answers within the deadline rule's grace (20 ms); a loaded
        // machine may answer later, and the give-back then lands just after
        Await.until(Duration.ofSeconds(5), () -> !raw.exists(a), "the member taken before the busy one is given back");
        assertThat(raw.exists(c)).isFalse();
        assertThat(multi.tryLock()).isFalse();
        assertThat(multi.isLocked()).isTrue();
        assertThat(multi.isHeldByCurrentThread()).isFalse();
        assertThat(multi.leaseValidFor()).isZero();

        Subscribers.await(raw, b, 0); // the timed attempts above have left b's channel
        Future<Boolean> waiter = workers.submit(() -> {
            boolean held = multi.tryLock(20, SECONDS);
            if (held) {
                assertThat(multi.isHeldByCurrentThread()).isTrue();
                assertThat(multi.getHoldCount()).isEqualTo(1);
                assertThat(multi.leaseValidFor()).isPositive();
                assertThat(multi.remainTimeToLive()).isPositive();
                multi.unlock();
            }
            return held;
        });
        Await.until(Subscribers.SETTLE, () -> Subscribers.count(raw, b) >= 1, "the multi-lock waits on b's channel");
        assertThat(waiter).as("waiting").isNotDone();
        blocker.unlock();
        assertThat(Workers.get(waiter, Duration.ofSeconds(20))).isTrue();
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
        assertThat(multi.remainTimeToLive()).isEqualTo(DistributedLock.TTL_NOT_LOCKED);

        multi.lock();
        multi.lock(); // re-entry, as each member
        assertThat(multi.getHoldCount()).isEqualTo(2);
        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(multi.isLocked()).isFalse();
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("3 of 3 members").hasMessageContaining(a).hasMessageContaining(c);
    }

    /**
     * A member taken with a fixed lease that runs out while a later member is awaited has nothing left to give back:
     * the timed-out acquisition answers false (and the async one completes with false) rather than failing
     * (seen by the chaos suite as an IllegalMonitorStateException from the give-back).
     */
    @Test
    void aMemberWhoseLeaseRanOutBeforeTheGiveBackIsNoFailure(LockClient client, LockClient other) throws Exception {
        DistributedLock holder = other.getLock(b);
        holder.lock();
        try {
            MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
            assertThat(multi.tryLock(600, 100, TimeUnit.MILLISECONDS)).as("b is busy; a's lease ends meanwhile")
                    .isFalse();
            assertThat(multi.tryLockAsync(600, 100, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS)).isFalse();
            assertThat(client.getLock(a).isLocked()).isFalse();
        } finally {
            holder.unlock();
        }
    }

    /** How a test acquires: each of the acquisitions that take a lease. */
    enum Way { TRY_LOCK, LOCK, TRY_LOCK_ASYNC }

    /**
     * Issue 27 #5. Client two holds b; client one's multi-lock (a, b) with a fixed 1 s lease waits for b. On the way
     * member by member it holds a meanwhile, and a must not run out while b is awaited: client two, trying a for
     * 2.5 s, must not get it, and when client two finally lets b go the multi-lock answers true with every member
     * held by it (an overlap counter per name judges every critical section of both clients), every member's hold
     * known valid, and the fixed lease counted from the moment the last member was taken. (Before the fix a ran out
     * after 1 s, client two took it, and the multi-lock still answered true.) On one slot the members are taken
     * together, so client two may take a first: the multi-lock then waits for it.
     */
    @ParameterizedTest
    @EnumSource(Way.class)
    void aFixedLeaseStartsWhenTheLastMemberIsTakenAndNoMemberRunsOutMeanwhile(Way way, LockClient client,
                                                                               LockClient other) throws Exception {
        long leaseMs = 1_000;
        AtomicInteger insideA = new AtomicInteger();
        AtomicInteger insideB = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        DistributedLock otherA = other.getLock(a);
        DistributedLock otherB = other.getLock(b);
        otherB.lock();
        enter(insideB, overlaps);
        LockOwner owner = client.newOwner();
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b)).as(owner);
        Future<Seen> acquirer = workers.submit(() -> {
            boolean held = switch (way) {
                case TRY_LOCK -> multi.tryLock(20_000, leaseMs, MILLISECONDS);
                case LOCK -> {
                    multi.lock(leaseMs, MILLISECONDS);
                    yield true;
                }
                case TRY_LOCK_ASYNC -> multi.tryLockAsync(20_000, leaseMs, MILLISECONDS).get(30, SECONDS);
            };
            if (!held) {
                return null;
            }
            enter(insideA, overlaps);
            enter(insideB, overlaps);
            // at once: what must hold at the moment true was returned
            boolean heldByOwner = multi.isHeldByCurrentThread();
            List<Duration> valid = multi.members().stream().map(DistributedLock::leaseValidFor).toList();
            List<Long> pttl = List.of(raw.pttl(a), raw.pttl(b));
            insideA.decrementAndGet();
            insideB.decrementAndGet();
            String unlocked = "unlocked";
            try {
                multi.unlock();
            } catch (RuntimeException e) {
                unlocked = e.toString();
            }
            return new Seen(heldByOwner, valid, pttl, unlocked);
        });
        if (!oneScript()) {
            Await.until(Duration.ofSeconds(10), () -> raw.exists(a), "the multi-lock takes a, then waits for b");
        }
        boolean gotA = otherA.tryLock(2_500, MILLISECONDS); // beyond a's 1 s lease: a must still be kept
        if (gotA) {
            enter(insideA, overlaps);
        }
        insideB.decrementAndGet();
        otherB.unlock(); // the multi-lock takes b now (and a too, on one slot, once a is free)
        if (gotA) {
            Thread.sleep(300); // client two's critical section on a: the multi-lock must wait for it
            insideA.decrementAndGet();
            otherA.unlock();
        }
        Seen seen = Workers.get(acquirer, Duration.ofSeconds(30));
        assertThat(overlaps.get()).as("critical sections of two owners overlapped on a member (" + seen + ")")
                .isZero();
        assertThat(seen).as("acquired").isNotNull();
        assertThat(gotA).as("a was kept for the multi-lock while it waited for b").isEqualTo(oneScript());
        assertThat(seen.held()).as("held by the owner when true was returned").isTrue();
        assertThat(seen.valid()).as("every member's hold known valid when true was returned")
                .allSatisfy(valid -> assertThat(valid).isPositive());
        assertThat(seen.pttl()).as("each member's TTL is the fixed lease, counted from when the last member was taken")
                .allSatisfy(ttl -> assertThat(ttl).isBetween(leaseMs / 2, leaseMs));
        assertThat(seen.unlocked()).isEqualTo("unlocked");
        assertThat(raw.exists(a) || raw.exists(b)).isFalse();
        assertThat(client.heldLocks()).isEmpty();
    }

    /**
     * A multi-lock with a fixed lease over a member its owner holds already with the watchdog: the multi-lock's
     * acquisitions end with its lease, the owner's own hold stays renewed (setting the lease of a member taken before
     * the last never cuts another acquisition's watchdog hold).
     */
    @Test
    void aFixedLeaseReentryLeavesTheOwnersWatchdogHoldRenewed(
            @ClientSettings(watchdogTimeoutMillis = 900) LockClient client) throws Exception {
        DistributedLock lockA = client.getLock(a);
        lockA.lock(); // watchdog: renewed every 300 ms
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        assertThat(multi.tryLock(0, 1_000, MILLISECONDS)).isTrue();
        assertThat(multi.getHoldCount()).isEqualTo(1);
        assertThat(lockA.getHoldCount()).isEqualTo(2);
        assertThat(raw.pttl(b)).isBetween(500L, 1_000L);
        multi.unlock();
        assertThat(raw.exists(b)).isFalse();
        Await.during(Duration.ofMillis(2_000), () -> lockA.isHeldByCurrentThread() && lockA.leaseValidFor()
                .toMillis() > 0 && raw.pttl(a) > 0, "a's own watchdog hold stays, beyond two watchdog timeouts");
        assertThat(raw.pttl(a)).as("a's TTL is the watchdog's").isLessThanOrEqualTo(900L);
        lockA.unlock();
        assertThat(raw.exists(a)).isFalse();
    }

    /** What the acquirer saw at the moment its multi-lock answered true. */
    record Seen(boolean held, List<Duration> valid, List<Long> pttl, String unlocked) {
    }

    /** Marks entry into a member's critical section; counts an overlap when somebody else is inside. */
    private static void enter(AtomicInteger inside, AtomicInteger overlaps) {
        if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
    }

    /**
     * Issue 27 #9: the holder of the multi-lock re-enters at once while another owner of its client waits for it (on
     * one slot that owner waits in the client's line for these members, which the holder must not join).
     */
    @Test
    void theHolderReentersAtOnceWhileAnotherOwnerOfItsClientWaits(LockClient client) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        MultiLock holder = multi.as(client.newOwner());
        holder.lock();
        Future<Boolean> waiter = workers.submit(() -> {
            boolean held = multi.tryLock(30, SECONDS);
            if (held) {
                multi.unlock();
            }
            return held;
        });
        awaitWaiting(client, a, "the other owner waits in line for the multi-lock");
        assertThat(waiter).as("waiting").isNotDone();
        long start = System.nanoTime();
        assertThat(workers.call(Duration.ofSeconds(10), () -> holder.tryLock(2, SECONDS))).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("tryLock re-entered at once")
                .isLessThan(1_000);
        workers.call(Duration.ofSeconds(10), () -> {
            holder.lock();
            return null;
        });
        Future<Void> async = holder.lockAsync();
        async.get(10, SECONDS);
        assertThat(holder.getHoldCount()).isEqualTo(4);
        assertThat(waiter.isDone()).as("the waiter still waits").isFalse();
        for (int i = 0; i < 4; i++) {
            holder.unlock();
        }
        assertThat(Workers.get(waiter, Duration.ofSeconds(20))).isTrue();
        assertThat(raw.exists(a) || raw.exists(b)).isFalse();
    }

    /**
     * Waits until an owner of {@code client} is in line for {@code member}: the client has an acquisition waiting
     * and listens on the member's channel (as the server says), which it does once it waits, whether behind an owner
     * of its own (the local queue of a member, or the client's line for a group of members) or in Redis. A waiter
     * that has not started yet fails this, where a quiet spell of script calls would pass.
     */
    void awaitWaiting(LockClient client, String member, String what) {
        Await.until(Subscribers.SETTLE, () -> Leaks.diagnostics(client).waiters() >= 1
                && Subscribers.count(raw, member) >= 1, () -> what + ": " + Leaks.diagnostics(client)
                + ", subscribers of " + member + ": " + Subscribers.count(raw, member));
    }

    /** Waits until no script call was counted for 100 ms: whoever was attempting now sleeps in Redis. */
    void awaitScriptCallsSettle(String whose) {
        long[] seen = {-1};
        Await.until(Duration.ofSeconds(10), () -> {
            long now = raw.scriptCalls();
            boolean still = now == seen[0];
            seen[0] = now;
            if (!still) {
                Thread.sleep(100);
            }
            return still;
        }, whose + " to settle");
    }

    @Test
    void oppositeOrdersFromManyThreadsFinishWithoutDeadlock(LockClient one, LockClient two) throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        List<Future<Void>> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            LockClient client = t % 2 == 0 ? one : two;
            boolean forward = t % 4 < 2;
            threads.add(workers.submit(() -> {
                List<DistributedLock> locks = new ArrayList<>(List.of(client.getLock(a), client.getFairLock(b),
                        client.getReadWriteLock(c).writeLock()));
                if (!forward) {
                    java.util.Collections.reverse(locks);
                }
                MultiLock multi = client.getMultiLock(locks);
                for (int i = 0; i < 15; i++) {
                    multi.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        Thread.sleep(1);
                        inside.decrementAndGet();
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
        assertThat(rounds.get()).isEqualTo(8 * 15);
        assertThat(overlaps.get()).isZero();
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
    }

    @Test
    void unlockReleasesEveryMemberWhenOneFails(@ClientSettings(watchdogTimeoutMillis = 900) LockClient client,
                                               LockClient other) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b), client.getLock(c));
        multi.lock();
        assertThat(other.getLock(b).forceUnlock()).isTrue();
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("1 of 3 members").hasMessageContaining("'" + b + "'")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
        assertThat(raw.exists(a)).as("released despite b's failure").isFalse();
        assertThat(raw.exists(c)).isFalse();
        // beyond a watchdog renewal: nothing comes back
        Await.during(Duration.ofMillis(1200), () -> !raw.exists(a) && !raw.exists(c), "no released member comes back");
        assertThat(client.heldLocks()).isEmpty();

        // a member whose key was replaced by something that is not a lock
        multi.lock();
        raw.sync().del(a);
        raw.sync().set(a, "not a lock");
        assertThatThrownBy(multi::unlock).hasMessageContaining("'" + a + "'");
        assertThat(raw.exists(b) || raw.exists(c)).isFalse();
        assertThat(raw.sync().get(a)).isEqualTo("not a lock");
    }

    @Test
    void leaseAndWatchdogAsForOneLock(@ClientSettings(watchdogTimeoutMillis = 600) LockClient client)
            throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        multi.lock(); // watchdog: renewed while held
        Await.during(Duration.ofMillis(1500), () -> raw.exists(a) && raw.exists(b),
                "both members kept by the watchdog past two lease lengths");
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();

        assertThat(multi.tryLock(0, 700, MILLISECONDS)).isTrue();
        assertThat(raw.pttl(a)).isBetween(1L, 700L);
        assertThat(raw.pttl(b)).isBetween(1L, 700L);
        assertThat(multi.leaseValidFor()).isBetween(Duration.ofMillis(1), Duration.ofMillis(700));
        multi.extendLease(Duration.ofSeconds(5));
        assertThat(raw.pttl(a)).isGreaterThan(4000L);
        multi.unlock();
        multi.lock(300, MILLISECONDS);
        Await.until(Duration.ofSeconds(5), () -> !raw.exists(a) && !raw.exists(b), "a fixed lease of 300 ms expires");
    }

    /**
     * An acquisition sends single attempts on every member at once and keeps the members before the first one
     * refused: one taken beyond it (here c, after the busy b) is given back before the acquisition waits for b, so
     * it waits holding only members before b, as the global order promises, sync and async alike. The fair b keeps
     * the members out of one script on every topology.
     */
    @Test
    void whileItWaitsForAMemberItHoldsOnlyTheMembersBeforeIt(LockClient client, LockClient other) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getFairLock(b), client.getLock(c));
        DistributedLock blocker = other.getFairLock(b);
        blocker.lock();
        Future<Boolean> sync = workers.submit(() -> {
            multi.lock();
            try {
                return multi.isHeldByCurrentThread();
            } finally {
                multi.unlock();
            }
        });
        Await.until(Subscribers.SETTLE, () -> Subscribers.count(raw, b) >= 1, "the multi-lock waits for b");
        assertThat(raw.exists(a)).as("a, before b, stays held while b is awaited").isTrue();
        assertThat(raw.exists(c)).as("c, after b, was given back").isFalse();
        blocker.unlock();
        assertThat(Workers.get(sync, Duration.ofSeconds(20))).isTrue();

        blocker.lock();
        MultiLock byOwner = multi.as(client.newOwner());
        CompletableFuture<Void> async = byOwner.lockAsync();
        // b's channels may still be joined from the first wait (a fair waiter's channel lingers): its place in b's
        // queue says that this one waits for b
        Await.until(Subscribers.SETTLE, () -> raw.sync().llen(RawRedis.fairQueue(b)) >= 1,
                "the async one waits for b");
        assertThat(raw.exists(a)).isTrue();
        assertThat(raw.exists(c)).isFalse();
        blocker.unlock();
        async.get(20, SECONDS);
        assertThat(byOwner.isHeldByCurrentThread()).isTrue();
        assertThat(byOwner.tryLockAsync().get(5, SECONDS)).as("re-entry, every member at once").isTrue();
        assertThat(byOwner.getHoldCount()).isEqualTo(2);
        byOwner.unlock();
        byOwner.unlock();
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
    }

    @Test
    void asyncAcquisitionsAllOrNothing(LockClient client, LockClient other) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        MultiLock byOwner = multi.as(client.newOwner());
        assertThat(byOwner.tryLockAsync(0, -1, MILLISECONDS).get(5, SECONDS)).isTrue();
        assertThat(byOwner.getHoldCountAsync().get(5, SECONDS)).isEqualTo(1);
        assertThat(byOwner.isHeldByCurrentThreadAsync().get(5, SECONDS)).as("the view's owner, not the thread")
                .isTrue();
        assertThat(multi.getHoldCountAsync().get(5, SECONDS)).as("the calling thread holds nothing").isZero();
        assertThat(other.getMultiLock(other.getLock(b), other.getLock(a)).tryLockAsync().get(5, SECONDS)).isFalse();
        byOwner.unlockAsync().get(5, SECONDS);
        assertThat(multi.isLockedAsync().get(5, SECONDS)).isFalse();

        // a view for an owner that is not a thread: taken on one thread, released on another
        MultiLock view = multi.as(client.newOwner());
        view.lock();
        assertThat(multi.isHeldByCurrentThread()).as("the calling thread is not the view's owner").isFalse();
        workers.call(Duration.ofSeconds(10), () -> {
            assertThat(view.isHeldByCurrentThread()).isTrue();
            view.unlock();
            return null;
        });
        assertThat(raw.exists(a) || raw.exists(b)).isFalse();

        DistributedLock blocker = other.getLock(b);
        blocker.lock();
        CompletableFuture<Void> waiting = byOwner.lockAsync(-1, MILLISECONDS);
        Await.until(Subscribers.SETTLE, () -> Subscribers.count(raw, b) >= 1, "the multi-lock waits on b's channel");
        assertThat(waiting).as("waiting").isNotDone();
        assertThat(raw.exists(a)).as(oneScript() ? "all or nothing: a is not held while b is awaited"
                : "a is held while b is awaited").isEqualTo(!oneScript());
        waiting.cancel(false);
        Await.until(Duration.ofSeconds(5), () -> !raw.exists(a), "a given back");
        blocker.unlock();
        Await.during(Duration.ofMillis(500), () -> !raw.exists(a) && !raw.exists(b),
                "the cancelled acquisition takes nothing");
    }

    /**
     * An async acquisition's steps run on the threads that bring Redis's answers, but the caller's future completes on
     * the client's executor ({@code dlock-callback} threads), never on a Redis I/O thread, whatever the last step was:
     * single attempts at once (the watchdog) or the fixed lease set on the members taken before the last.
     */
    @ParameterizedTest
    @EnumSource(LeaseKind.class)
    void anAsyncAcquisitionCompletesOnTheClientsExecutor(LeaseKind lease, LockClient client, LockClient other)
            throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b), client.getLock(c));
        MultiLock byOwner = multi.as(client.newOwner());
        DistributedLock blocker = other.getLock(a); // the first member in the global order
        blocker.lock();
        CompletableFuture<String> completedOn = new CompletableFuture<>();
        CompletableFuture<Boolean> acquiring = byOwner.tryLockAsync(10_000, lease.ms, MILLISECONDS);
        acquiring.whenComplete((held, error) -> completedOn.complete(Thread.currentThread().getName()));
        assertThat(acquiring).as("waits for a").isNotDone();
        blocker.unlock();
        // not acquiring.get(): a thread waiting in get() may run the future's callbacks itself once it completes
        assertThat(completedOn.get(5, SECONDS)).as("the thread that completed the caller's future")
                .startsWith("dlock-callback");
        assertThat(acquiring.join()).isTrue();
        byOwner.unlockAsync().get(5, SECONDS);
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
    }

    /**
     * An interrupt gives a sync wait up, and the caller hears of it only once what the acquisition took is given back
     * ({@code Lock.lockInterruptibly}: the caller that sees the exception holds nothing), with the interrupt flag
     * cleared.
     */
    @Test
    void anInterruptedSyncWaitGivesBackWhatItTookBeforeItThrows(LockClient client, LockClient other)
            throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        DistributedLock blocker = other.getLock(b);
        blocker.lock();
        CompletableFuture<String> heard = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                multi.lockInterruptibly();
                multi.unlock();
                heard.complete("acquired");
            } catch (InterruptedException expected) {
                heard.complete("interrupted; flag " + Thread.currentThread().isInterrupted() + "; a held "
                        + raw.exists(a) + "; held locks " + client.heldLocks().size());
            } catch (RuntimeException e) {
                heard.completeExceptionally(e);
            }
        }, "multi-waiter");
        waiter.start();
        Await.until(Subscribers.SETTLE, () -> Subscribers.count(raw, b) >= 1, "the multi-lock waits on b's channel");
        assertThat(raw.exists(a)).as(oneScript() ? "all or nothing: a is not held while b is awaited"
                : "a is held while b is awaited").isEqualTo(!oneScript());
        waiter.interrupt();
        assertThat(heard.get(10, SECONDS)).isEqualTo("interrupted; flag false; a held false; held locks 0");
        blocker.unlock();
        Await.during(Duration.ofMillis(500), () -> !raw.exists(a) && !raw.exists(b),
                "nothing taken after the interrupt");
        assertThat(multi.tryLock()).as("free for the same client").isTrue();
        multi.unlock();
    }

    /**
     * One owner's acquisitions stay in order across a cancel: an async acquisition cancelled at a random moment
     * (0-400 µs, so across its member steps), then at once a timed try of the same owner, thousands of times. The try
     * never meets the cancelled acquisition's grant as a hold to re-enter, nor its give-back as a loss (it failed
     * with {@link io.dlock.LockLostException} 2-7 times per 3,000 rounds on the member-after-member path before the
     * cancel ordered the owner's next acquisitions after the give-back), and nothing is left held.
     */
    @Test
    void aCancelledAcquisitionIsGivenBackBeforeTheOwnersNextOne(LockClient client) throws Exception {
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getLock(b));
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        int rounds = 3000;
        int cancelled = 0;
        java.util.List<String> failures = new java.util.ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            CompletableFuture<Void> acquisition = multi.lockAsync();
            java.util.concurrent.locks.LockSupport.parkNanos(random.nextInt(400_000));
            if (acquisition.cancel(false)) {
                cancelled++;
            } else {
                acquisition.get(10, SECONDS);
                multi.unlock();
            }
            try {
                if (multi.tryLock(2, SECONDS)) {
                    multi.unlock();
                } else {
                    failures.add("round " + i + ": not acquired within 2 s");
                }
            } catch (RuntimeException e) {
                failures.add("round " + i + ": " + e);
            }
        }
        System.out.printf("multi-lock cancel then the owner's next acquisition: %d rounds, %d cancelled, %d failed%n",
                rounds, cancelled, failures.size());
        assertThat(failures).as("the owner's next acquisitions after %d cancels (the first: %s)", cancelled,
                failures.subList(0, Math.min(3, failures.size()))).isEmpty();
        assertThat(cancelled).as("cancels that landed").isPositive();
        Await.until(Duration.ofSeconds(5), () -> client.heldLocks().isEmpty(), () -> "left held: "
                + client.heldLocks());
        assertThat(raw.exists(a) || raw.exists(b)).as("nothing left in Redis").isFalse();
    }

    enum LeaseKind {
        WATCHDOG(-1), FIXED(20_000);

        final long ms;

        LeaseKind(long ms) {
            this.ms = ms;
        }
    }

    @Test
    void badInputIsRefusedNamingTheLock(LockClient client, LockClient other) {
        assertThatThrownBy(() -> client.getMultiLock()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> client.getMultiLock((DistributedLock[]) null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> client.getMultiLock(client.getLock(a), null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("locks[1]");
        assertThatThrownBy(() -> client.getMultiLock(client.getLock(a), client.getLock(a)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + a + "' appears twice");
        assertThatThrownBy(() -> client.getMultiLock(client.getLock(a), client.getFencedLock(a)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("appears twice");
        assertThatThrownBy(() -> client.getMultiLock(client.getLock(a), other.getLock(b)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another LockClient");
        MultiLock inner = client.getMultiLock(client.getLock(a));
        assertThatThrownBy(() -> client.getMultiLock(inner, client.getLock(b)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nested");
        assertThatThrownBy(() -> inner.lock(0, MILLISECONDS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(inner::newCondition).isInstanceOf(UnsupportedOperationException.class);

        // a member whose key is not a lock: refused naming it, nothing taken
        raw.sync().set(b, "not a lock");
        MultiLock overWrongType = client.getMultiLock(client.getLock(a), client.getLock(b));
        assertThatThrownBy(overWrongType::tryLock).isInstanceOf(io.dlock.NotALockException.class)
                .hasMessageContaining(b).hasMessageContaining("holds a string");
        assertThatThrownBy(() -> overWrongType.tryLock(200, MILLISECONDS))
                .isInstanceOf(io.dlock.NotALockException.class).hasMessageContaining(b);
        assertThat(raw.exists(a)).isFalse();
        raw.sync().del(b);

        // the two sides of one read-write lock: allowed, write side first
        MultiLock both = client.getMultiLock(client.getReadWriteLock(a).readLock(),
                client.getReadWriteLock(a).writeLock());
        assertThat(both.getName()).isEqualTo("MultiLock[" + a + "(WRITE), " + a + "(READ)]");
        both.lock();
        assertThat(both.isHeldByCurrentThread()).isTrue();
        both.unlock();
        assertThat(raw.exists(a)).isFalse();
    }

    @Test
    void redissonMultiLockExcludesItAndIsExcludedByIt(LockClient client) throws Exception {
        RLock theirs = redisson.getMultiLock(redisson.getLock(c), redisson.getLock(a));
        MultiLock ours = client.getMultiLock(client.getLock(a), client.getLock(c));

        theirs.lock();
        assertThat(ours.tryLock(300, MILLISECONDS)).isFalse();
        assertThat(ours.isHeldByCurrentThread()).isFalse();
        Subscribers.await(raw, a, 0); // the timed attempt above has left the members' channels
        Subscribers.await(raw, c, 0);
        Future<Boolean> waiter = workers.submit(() -> {
            boolean held = ours.tryLock(20, SECONDS);
            if (held) {
                ours.unlock();
            }
            return held;
        });
        Await.until(Subscribers.SETTLE, () -> Subscribers.count(raw, a) + Subscribers.count(raw, c) >= 1,
                "our multi-lock waits on a member's channel");
        assertThat(waiter).as("waiting").isNotDone();
        theirs.unlock();
        assertThat(Workers.get(waiter, Duration.ofSeconds(20))).as("Redisson's release wakes dlock").isTrue();

        ours.lock();
        Future<Boolean> redissonTry = workers.submit(() -> theirs.tryLock(300, -1, MILLISECONDS));
        assertThat(Workers.get(redissonTry, Duration.ofSeconds(10))).isFalse();
        ours.unlock();
        Future<Boolean> redissonAfter = workers.submit(() -> {
            boolean held = theirs.tryLock(10_000, -1, MILLISECONDS);
            if (held) {
                theirs.unlock();
            }
            return held;
        });
        assertThat(Workers.get(redissonAfter, Duration.ofSeconds(15))).isTrue();
    }
}
