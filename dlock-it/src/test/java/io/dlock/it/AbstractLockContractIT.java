package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.internal.client.Diagnostics;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.OverlapDetector;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.TestOutcome;
import io.dlock.it.support.Unlocks;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.RedisTopology;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static io.dlock.DistributedLock.TTL_NOT_LOCKED;
import static io.dlock.DistributedLock.TTL_NO_EXPIRY;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The contract every exclusive lock kind keeps (plain, fair, the write side of a read-write lock, fenced), run against
 * a real Redis. A subclass supplies the lock ({@link #lock(LockClient, String)}) and, if its wire layout differs from
 * the plain lock's, overrides the wire hooks ({@link #ownerField}, {@link #assertHeldOnWire},
 * {@link #assertFreeOnWire}, {@link #assertNothingLeftOnServer}).
 *
 * <p>Tests obtain locks through {@link #on(LockClient)}, which remembers the client; after every passing test
 * {@link #checkNothingLeaked()} waits (bounded) until each such client holds, renews, tracks, waits for and subscribes
 * to nothing, and checks that the server has no subscribers and no keys left.
 *
 * <p>Timing assertions use a watchdog timeout of {@value #WATCHDOG_MS} ms and long (60 s) leases where a prompt
 * wake-up must be explained by pub/sub rather than by expiry.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = AbstractLockContractIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
public abstract class AbstractLockContractIT {

    /** The watchdog timeout of every injected client (unless a test says otherwise). */
    protected static final int WATCHDOG_MS = 1500;
    /** How quickly a blocked waiter must notice an unlock: far below any lease used while it waits. */
    protected static final long WAKE_UP_MS = 500;
    /** "At once": one round trip, with room for a slow CI machine. */
    protected static final long AT_ONCE_MS = 250;
    /** Bound for a worker task that is expected to finish. */
    protected static final Duration TASK_BOUND = Duration.ofSeconds(10);

    @RegisterExtension
    final TestOutcome outcome = new TestOutcome();

    /** The lock name of the current test (unique per test method). */
    protected String name;
    /** An independent connection to the test's server. */
    protected RawRedis raw;
    /** Threads for the current test; interrupted after it. */
    protected Workers workers;

    private final Set<LockClient> usedClients = Collections.newSetFromMap(new IdentityHashMap<>());

    /** @return the lock under test, named {@code name}, made by {@code client} */
    protected abstract DistributedLock lock(LockClient client, String name);

    // ------------------------------------------------------------------------------------------ wire hooks

    /** @return the hash field under which a hold of {@code ownerId} of {@code client} is counted */
    protected String ownerField(LockClient client, long ownerId) {
        return RawRedis.field(client.getId(), ownerId);
    }

    /**
     * Checks over the raw connection that exactly this owner holds {@code name}, {@code holds} times, and that the
     * key has a TTL.
     */
    protected void assertHeldOnWire(String name, LockClient client, long ownerId, int holds) {
        Map<String, String> hash = raw.hgetall(name);
        assertThat(hash).as("hash %s", name).isEqualTo(Map.of(ownerField(client, ownerId), Integer.toString(holds)));
        assertThat(raw.pttl(name)).as("PTTL %s", name).isPositive();
    }

    /** Checks over the raw connection that nobody holds {@code name}. */
    protected void assertFreeOnWire(String name) {
        assertThat(raw.exists(name)).as("key %s exists: %s", name, raw.hgetall(name)).isFalse();
    }

    /** Checks that the lock kind left nothing behind on the server (default: the database is empty). */
    protected void assertNothingLeftOnServer() {
        assertThat(raw.keys()).as("keys left on the server").isEmpty();
    }

    // ------------------------------------------------------------------------------------------ plumbing

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:" + getClass().getSimpleName() + ":" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("it-worker");
    }

    @AfterEach
    void checkNothingLeaked() {
        try {
            if (!outcome.failed()) {
                for (LockClient client : usedClients) {
                    Leaks.assertClientIdle(client);
                }
                Leaks.assertNoSubscriptions(raw);
                assertNothingLeftOnServer();
            }
        } finally {
            workers.close();
            raw.close();
        }
    }

    /** @return the lock under test, named {@link #name}, on {@code client}; the client is then leak-checked */
    protected final DistributedLock on(LockClient client) {
        return on(client, name);
    }

    /** @return the lock under test with another name, on {@code client}; the client is then leak-checked */
    protected final DistributedLock on(LockClient client, String lockName) {
        usedClients.add(client);
        return lock(client, lockName);
    }

    protected static long tid() {
        return Thread.currentThread().getId();
    }

    /** A regex that finds {@code id} as a whole number in a message (so that "1" does not match "17"). */
    protected static String wholeNumber(long id) {
        return "(?s).*(?<![0-9])" + id + "(?![0-9]).*";
    }

    // ------------------------------------------------------------------------------------------ reentrancy

    @Test
    void reentrantHoldsAreCountedInOneField(LockClient a, LockClient b) {
        DistributedLock lock = on(a);
        long me = tid();
        lock.lock();
        lock.lock();

        assertHeldOnWire(name, a, me, 2);
        assertThat(raw.pttl(name)).isBetween(1L, (long) WATCHDOG_MS);
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.as(LockOwner.of(me)).isHeldByCurrentThread()).isTrue();
        assertThat(lock.isLocked()).isTrue();

        // another instance for the same name is the same lock: the same owner re-enters
        DistributedLock sameLock = on(a);
        sameLock.lock();
        assertHeldOnWire(name, a, me, 3);
        sameLock.unlock();
        assertHeldOnWire(name, a, me, 2);

        // another thread of the same client sees it locked, but not by itself
        record View(long threadId, boolean heldByCurrent, int holdCount, boolean locked, boolean heldByMain) {
        }
        View other = workers.call(TASK_BOUND, () -> new View(tid(), lock.isHeldByCurrentThread(),
                lock.getHoldCount(), lock.isLocked(), lock.as(LockOwner.of(me)).isHeldByCurrentThread()));
        assertThat(other.heldByCurrent()).isFalse();
        assertThat(other.holdCount()).isZero();
        assertThat(other.locked()).isTrue();
        assertThat(other.heldByMain()).isTrue();
        assertThat(lock.as(LockOwner.of(other.threadId())).isHeldByCurrentThread()).isFalse();

        // another client, from a thread with the same id: the client id tells them apart
        DistributedLock seenByB = on(b);
        assertThat(seenByB.isLocked()).isTrue();
        assertThat(seenByB.isHeldByCurrentThread()).isFalse();
        assertThat(seenByB.as(LockOwner.of(me)).isHeldByCurrentThread()).isFalse();
        assertThat(seenByB.getHoldCount()).isZero();
        assertThat(seenByB.tryLock()).isFalse();
        assertHeldOnWire(name, a, me, 2);

        lock.unlock();
        assertHeldOnWire(name, a, me, 1);
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.isLocked()).isTrue();

        lock.unlock();
        assertFreeOnWire(name);
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.as(LockOwner.of(me)).isHeldByCurrentThread()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThat(seenByB.isLocked()).isFalse();
    }

    // ------------------------------------------------------------------------------------------ leases

    @Test
    void fixedLeaseExpiresAndTheLockPassesOn(LockClient a, LockClient b) throws InterruptedException {
        DistributedLock holder = on(a);
        long me = tid();
        long start = System.nanoTime();
        holder.lock(500, MILLISECONDS);
        assertThat(raw.pttl(name)).isBetween(1L, 500L);
        assertHeldOnWire(name, a, me, 1);

        DistributedLock next = on(b);
        assertThat(next.tryLock(3, SECONDS)).as("b gets the lock once a's lease ends").isTrue();
        long after = Await.millisSince(start);
        assertThat(after).as("ms until the 500 ms lease let b in").isBetween(450L, 1500L);
        assertHeldOnWire(name, b, me, 1);

        assertThatThrownBy(holder::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name)
                .matches(e -> e.getMessage().matches(wholeNumber(me)), "message names owner id " + me);
        assertThat(holder.leaseValidFor()).isEqualTo(Duration.ZERO);
        // the failed unlock did not touch b's hold
        assertHeldOnWire(name, b, me, 1);
        assertThat(next.isHeldByCurrentThread()).isTrue();

        next.unlock();
        assertFreeOnWire(name);
    }

    @Test
    void watchdogKeepsTheLockPastItsTimeout(LockClient a) {
        DistributedLock lock = on(a);
        long me = tid();
        lock.lock();
        String field = ownerField(a, me);
        assertThat(Leaks.diagnostics(a).renewedHolds()).isEqualTo(1);

        // three watchdog periods and more: only renewal can keep it
        Await.during(Duration.ofMillis(3L * WATCHDOG_MS + 500), () -> {
            long pttl = raw.pttl(name);
            return pttl > 0 && pttl <= WATCHDOG_MS && raw.sync().hexists(name, field)
                    && lock.leaseValidFor().compareTo(Duration.ZERO) > 0;
        }, () -> "watchdog hold lapsed: hash=" + raw.hgetall(name) + " pttl=" + raw.pttl(name)
                + " leaseValidFor=" + lock.leaseValidFor());
        assertHeldOnWire(name, a, me, 1);
        assertThat(lock.isHeldByCurrentThread()).isTrue();

        lock.unlock();
        assertFreeOnWire(name);
        Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(a).renewedHolds() == 0,
                () -> "renewal not cancelled after unlock: " + Leaks.diagnostics(a));
        // and it does not come back: nothing renews a released lock
        Await.during(Duration.ofMillis(WATCHDOG_MS / 2 + 100), () -> !raw.exists(name), "released key reappeared");
    }

    @Test
    void leaseHoldIsNotRenewed(LockClient a) {
        DistributedLock lock = on(a);
        long start = System.nanoTime();
        lock.lock(700, MILLISECONDS);
        Diagnostics d = Leaks.diagnostics(a);
        assertThat(d.renewedHolds()).as("renewed holds (%s)", d).isZero();
        assertThat(d.trackedHolds()).as("tracked holds (%s)", d).isEqualTo(1);

        Await.until(Duration.ofSeconds(3), () -> !raw.exists(name), "a 700 ms lease should expire");
        assertThat(Await.millisSince(start)).as("ms until the 700 ms lease expired").isGreaterThanOrEqualTo(650L);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void remainTimeToLiveFollowsTheLease(LockClient a) {
        DistributedLock lock = on(a);
        assertThat(lock.remainTimeToLive()).isEqualTo(TTL_NOT_LOCKED);

        lock.lock(10, SECONDS);
        assertThat(lock.remainTimeToLive()).isBetween(9000L, 10000L);
        lock.unlock();
        assertThat(lock.remainTimeToLive()).isEqualTo(TTL_NOT_LOCKED);

        lock.lock();
        assertThat(lock.remainTimeToLive()).isBetween(800L, (long) WATCHDOG_MS);
        lock.unlock();

        // a partial unlock resets the TTL to the lease, as Redisson does
        lock.lock(10, SECONDS);
        lock.lock(10, SECONDS);
        lock.lock(10, SECONDS);
        lock.unlock();
        lock.unlock();
        assertThat(raw.pttl(name)).isBetween(9000L, 10000L);
        assertThat(lock.remainTimeToLive()).isBetween(9000L, 10000L);
        assertThat(lock.remainTimeToLiveAsync()).succeedsWithin(TASK_BOUND)
                .satisfies(ttl -> assertThat(ttl).isBetween(9000L, 10000L));
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.remainTimeToLive()).isEqualTo(TTL_NOT_LOCKED);

        // a key that dlock never wrote, without expiry
        raw.sync().hset(name, "somebody-else:1", "1");
        assertThat(lock.remainTimeToLive()).isEqualTo(TTL_NO_EXPIRY);
        raw.sync().del(name);
    }

    @Test
    void leaseValidForIsTheLocalViewOfTheHold(LockClient a) {
        DistributedLock lock = on(a);
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);

        lock.lock(10, SECONDS);
        assertThat(lock.leaseValidFor()).isGreaterThan(Duration.ofSeconds(8)).isLessThanOrEqualTo(Duration.ofSeconds(10));
        assertThat(workers.call(TASK_BOUND, lock::leaseValidFor)).as("from a thread that holds nothing")
                .isEqualTo(Duration.ZERO);
        lock.unlock();
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);

        lock.lock();
        assertThat(lock.leaseValidFor()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(WATCHDOG_MS));
        lock.unlock();
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
    }

    // ------------------------------------------------------------------------------------------ waiting

    @Test
    void tryLockWaitsNoLongerThanAsked(LockClient a, LockClient b) throws InterruptedException {
        DistributedLock holder = on(b);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(a);

        long t = System.nanoTime();
        assertThat(lock.tryLock(300, MILLISECONDS)).isFalse();
        assertThat(Await.millisSince(t)).as("ms tryLock(300 ms) took").isBetween(300L, 1000L);

        t = System.nanoTime();
        assertThat(lock.tryLock(Duration.ofMillis(300), Duration.ofSeconds(5))).isFalse();
        assertThat(Await.millisSince(t)).as("ms tryLock(300 ms, 5 s) took").isBetween(300L, 1000L);

        t = System.nanoTime();
        assertThat(lock.tryLock()).isFalse();
        assertThat(Await.millisSince(t)).as("ms tryLock() took").isLessThan(AT_ONCE_MS);

        t = System.nanoTime();
        assertThat(lock.tryLock(0, MILLISECONDS)).isFalse();
        assertThat(lock.tryLock(0, 5000, MILLISECONDS)).isFalse();
        assertThat(Await.millisSince(t)).as("ms two tryLock(0 …) took").isLessThan(2 * AT_ONCE_MS);

        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(raw.pttl(name)).as("the holder's lease is untouched").isGreaterThan(55_000L);
        holder.unlock();

        // one attempt is enough when the lock is free
        assertThat(lock.tryLock(0, MILLISECONDS)).isTrue();
        assertHeldOnWire(name, a, tid(), 1);
        lock.unlock();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        assertFreeOnWire(name);
    }

    @Test
    void forceUnlockWakesAWaiterAtOnce(LockClient a, LockClient b, LockClient admin) throws Exception {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock waiting = on(b);
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong acquiredAt = new AtomicLong();
        Future<Long> waiter = workers.submit(() -> {
            waiting.lock();
            try {
                acquiredAt.set(System.nanoTime());
                acquired.countDown();
                assertThat(release.await(20, SECONDS)).isTrue();
            } finally {
                waiting.unlock();
            }
            return tid();
        });
        Leaks.awaitWaiters(b, 1);

        DistributedLock force = on(admin);
        long t0 = System.nanoTime();
        assertThat(force.forceUnlock()).isTrue();
        assertThat(acquired.await(5, SECONDS)).as("waiter woke up").isTrue();
        assertThat(Duration.ofNanos(acquiredAt.get() - t0).toMillis()).as("ms until the waiter had it")
                .isLessThan(WAKE_UP_MS);

        assertThatThrownBy(holder::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
        assertThat(waiting.isLocked()).isTrue();
        assertThat(holder.isHeldByCurrentThread()).isFalse();

        release.countDown();
        long waiterThread = Workers.get(waiter, TASK_BOUND);
        assertThat(waiterThread).isNotEqualTo(tid());
        assertFreeOnWire(name);
        assertThat(force.forceUnlock()).as("nothing left to remove").isFalse();
    }

    @Test
    void forceUnlockReleasesAllHoldsOfTheOwner(LockClient a) {
        DistributedLock lock = on(a);
        lock.lock();
        lock.lock();
        assertThat(lock.forceUnlock()).isTrue();
        assertFreeOnWire(name);
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(a).renewedHolds() == 0,
                () -> "renewal not cancelled by forceUnlock: " + Leaks.diagnostics(a));
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    // ------------------------------------------------------------------------------------------ ownership

    @Test
    void unlockByANonOwnerFailsAndKeepsTheHold(LockClient a, LockClient b) {
        DistributedLock lock = on(a);
        long me = tid();
        lock.lock();

        Throwable otherThread = catchThrowable(() -> workers.call(TASK_BOUND, () -> {
            lock.unlock();
            return null;
        }));
        assertThat(otherThread).as("unlock from another thread of the holder's client")
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);

        DistributedLock fromB = on(b);
        assertThatThrownBy(fromB::unlock).as("unlock from another client, same thread id")
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);
        Throwable otherClientThread = catchThrowable(() -> workers.call(TASK_BOUND, () -> {
            fromB.unlock();
            return null;
        }));
        assertThat(otherClientThread).as("unlock from another thread of another client")
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);

        assertHeldOnWire(name, a, me, 1);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);

        lock.unlock();
        assertFreeOnWire(name);
        assertThatThrownBy(lock::unlock).as("unlock once more")
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name)
                .matches(e -> e.getMessage().matches(wholeNumber(me)), "message names owner id " + me);
    }

    @Test
    void asyncOwnersMayHopThreads(LockClient a) {
        DistributedLock lock = on(a);
        long owner = 770_077L;
        long stranger = 780_078L;
        DistributedLock byOwner = lock.as(LockOwner.of(owner));
        DistributedLock byStranger = lock.as(LockOwner.of(stranger));

        assertThat(byOwner.lockAsync(LEASE_WATCHDOG, MILLISECONDS)).succeedsWithin(TASK_BOUND);
        assertHeldOnWire(name, a, owner, 1);
        assertThat(byOwner.isHeldByCurrentThread()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(Leaks.diagnostics(a).renewedHolds()).as("a watchdog hold").isEqualTo(1);

        // nobody else may release it, from any thread
        CompletableFuture<Void> wrongOwner = workers.call(TASK_BOUND, () -> byStranger.unlockAsync());
        Throwable failure = Workers.failureOf(wrongOwner, TASK_BOUND);
        assertThat(failure).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);
        assertThat(failure.getMessage()).matches(wholeNumber(stranger));
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

        // nor take it
        assertThat(byStranger.tryLockAsync(0, LEASE_WATCHDOG, MILLISECONDS)).succeedsWithin(TASK_BOUND)
                .isEqualTo(false);
        long t = System.nanoTime();
        assertThat(byStranger.tryLockAsync(200, 5000, MILLISECONDS)).succeedsWithin(TASK_BOUND)
                .isEqualTo(false);
        assertThat(Await.millisSince(t)).isGreaterThanOrEqualTo(200L);

        // the owner re-enters from one thread and releases from others
        CompletableFuture<Void> reentry = workers.call(TASK_BOUND,
                () -> byOwner.lockAsync(LEASE_WATCHDOG, MILLISECONDS));
        assertThat(reentry).succeedsWithin(TASK_BOUND);
        assertHeldOnWire(name, a, owner, 2);
        assertThat(workers.call(TASK_BOUND, () -> byOwner.unlockAsync())).succeedsWithin(TASK_BOUND);
        assertHeldOnWire(name, a, owner, 1);

        // a waiting async acquisition completes when the owner lets go
        CompletableFuture<Void> queued = byStranger.lockAsync(5000, MILLISECONDS);
        Await.during(Duration.ofMillis(200), () -> !queued.isDone(), "stranger got a held lock");
        long released = System.nanoTime();
        assertThat(workers.call(TASK_BOUND, () -> byOwner.unlockAsync())).succeedsWithin(TASK_BOUND);
        assertThat(queued).succeedsWithin(Duration.ofSeconds(3));
        assertThat(Await.millisSince(released)).as("ms until the queued acquisition completed")
                .isLessThan(WAKE_UP_MS);
        assertHeldOnWire(name, a, stranger, 1);
        assertThat(raw.pttl(name)).isBetween(1L, 5000L);
        assertThat(lock.isLockedAsync()).succeedsWithin(TASK_BOUND).isEqualTo(true);
        assertThat(byStranger.unlockAsync()).succeedsWithin(TASK_BOUND);
        assertFreeOnWire(name);

        // the current-thread forms
        assertThat(lock.lockAsync()).succeedsWithin(TASK_BOUND);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(lock.tryLockAsync()).succeedsWithin(TASK_BOUND).isEqualTo(true);
        assertThat(lock.unlockAsync()).succeedsWithin(TASK_BOUND);
        assertThat(lock.isLockedAsync()).succeedsWithin(TASK_BOUND).isEqualTo(false);
        assertThat(lock.forceUnlockAsync()).succeedsWithin(TASK_BOUND).isEqualTo(false);
        assertThat(lock.remainTimeToLiveAsync()).succeedsWithin(TASK_BOUND).isEqualTo(TTL_NOT_LOCKED);
        assertFreeOnWire(name);
    }

    /**
     * Redisson's forms with a raw owner id, deprecated for removal, as long as they exist: each acts for the owner it
     * names, as that owner's view does, whatever owner the lock object or view it is called on acts for.
     */
    @Test
    @SuppressWarnings("removal") // tests the deprecated raw-id forms themselves
    void deprecatedOwnerIdFormsActForTheOwnerTheyName(LockClient a) {
        DistributedLock lock = on(a);
        long owner = 790_079L;
        long stranger = 800_080L;
        DistributedLock byOwner = lock.as(LockOwner.of(owner));
        DistributedLock byStranger = lock.as(LockOwner.of(stranger));

        assertThat(lock.lockAsync(LEASE_WATCHDOG, MILLISECONDS, owner)).succeedsWithin(TASK_BOUND);
        assertHeldOnWire(name, a, owner, 1);
        assertThat(byOwner.getHoldCount()).isEqualTo(1);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isHeldByThread(owner)).isTrue();
        assertThat(lock.isHeldByThread(stranger)).isFalse();
        assertThat(lock.isHeldByThreadAsync(owner)).succeedsWithin(TASK_BOUND).isEqualTo(true);
        assertThat(lock.getHoldCountAsync(owner)).succeedsWithin(TASK_BOUND).isEqualTo(1);
        assertThat(lock.getHoldCountAsync(stranger)).succeedsWithin(TASK_BOUND).isEqualTo(0);

        // called on another owner's view, they still act for the id given
        assertThat(byStranger.tryLockAsync(0, LEASE_WATCHDOG, MILLISECONDS, owner)).succeedsWithin(TASK_BOUND)
                .isEqualTo(true);
        assertHeldOnWire(name, a, owner, 2);
        assertThat(byStranger.isHeldByThread(owner)).isTrue();
        assertThat(Workers.failureOf(lock.unlockAsync(stranger), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(byStranger.unlockAsync(owner)).succeedsWithin(TASK_BOUND);
        assertThat(workers.call(TASK_BOUND, () -> lock.unlockAsync(owner))).succeedsWithin(TASK_BOUND);
        assertFreeOnWire(name);
        assertThat(byOwner.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void cancelledAsyncWaitLeavesNothingBehind(LockClient a, LockClient b) {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        // b's connection to the lock's node is up first: on a Cluster the first command to a node waits for its
        // connection, and an attempt sent before the cancel could then run after the holder's unlock (and be undone)
        assertThat(lock.isLocked()).isTrue();
        CompletableFuture<Void> waiting = lock.as(LockOwner.of(4242L)).lockAsync(LEASE_WATCHDOG, MILLISECONDS);
        Leaks.awaitWaiters(b, 1);
        assertThat(waiting.cancel(true)).isTrue();

        holder.unlock();
        // the abandoned acquisition must not take the lock now that it is free
        Await.during(Duration.ofMillis(500), () -> !raw.exists(name),
                () -> "a cancelled acquisition holds the lock: " + raw.hgetall(name));
        assertThat(lock.as(LockOwner.of(4242L)).isHeldByCurrentThread()).isFalse();
        Leaks.assertClientIdle(b);
    }

    // ------------------------------------------------------------------------------------------ interrupts

    @Test
    void lockInterruptiblyThrowsInterruptedException(LockClient a, LockClient b) throws Exception {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        CountDownLatch started = new CountDownLatch(1);
        Thread[] thread = new Thread[1];
        Future<Throwable> waiter = workers.submit(() -> {
            thread[0] = Thread.currentThread();
            started.countDown();
            try {
                lock.lockInterruptibly(LEASE_WATCHDOG, MILLISECONDS);
                lock.unlock();
                return null;
            } catch (InterruptedException e) {
                return e;
            }
        });
        assertThat(started.await(5, SECONDS)).isTrue();
        Leaks.awaitWaiters(b, 1);
        long t0 = System.nanoTime();
        thread[0].interrupt();
        assertThat(Workers.get(waiter, Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
        assertThat(Await.millisSince(t0)).as("ms until the interrupt ended the wait").isLessThan(WAKE_UP_MS);
        Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(b).waiters() == 0,
                () -> "interrupted waiter still counted: " + Leaks.diagnostics(b));

        holder.unlock();
        // the abandoned attempt must not take the lock now that it is free, nor stay subscribed
        Await.during(Duration.ofMillis(300), () -> !raw.exists(name),
                () -> "the interrupted acquisition took the lock: " + raw.hgetall(name));
        Leaks.assertClientIdle(b);
        Leaks.assertNoSubscriptions(raw);
    }

    @Test
    void lockIgnoresInterruptsButKeepsTheFlag(LockClient a, LockClient b) throws Exception {
        DistributedLock holder = on(a);
        holder.lock(60, SECONDS);
        DistributedLock lock = on(b);
        record Outcome(boolean interruptedOnReturn, boolean held, boolean freeAfterUnlock) {
        }
        CountDownLatch started = new CountDownLatch(1);
        Thread[] thread = new Thread[1];
        Future<Outcome> waiter = workers.submit(() -> {
            thread[0] = Thread.currentThread();
            started.countDown();
            lock.lock();
            boolean interrupted = Thread.currentThread().isInterrupted();
            boolean held = lock.isHeldByCurrentThread();
            lock.unlock(); // with the interrupt flag still set: must release all the same
            Thread.interrupted(); // (our raw Lettuce connection would refuse to work with the flag set)
            boolean free = !raw.exists(name);
            return new Outcome(interrupted, held, free);
        });
        assertThat(started.await(5, SECONDS)).isTrue();
        Leaks.awaitWaiters(b, 1);
        thread[0].interrupt();
        Await.during(Duration.ofMillis(300), () -> !waiter.isDone() && Leaks.diagnostics(b).waiters() == 1,
                "lock() must keep waiting when interrupted");

        holder.unlock();
        Outcome outcome = Workers.get(waiter, Duration.ofSeconds(5));
        assertThat(outcome.held()).as("lock() returned holding the lock").isTrue();
        assertThat(outcome.interruptedOnReturn()).as("interrupt flag set again on return").isTrue();
        assertThat(outcome.freeAfterUnlock()).as("unlock() released with the flag set").isTrue();
        assertFreeOnWire(name);
    }

    // ------------------------------------------------------------------------------------------ bad input

    @Test
    void badArgumentsAreRejected(LockClient a) {
        assertThatThrownBy(() -> on(a, null)).isInstanceOf(NullPointerException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> on(a, "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> on(a, "  \t")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");

        DistributedLock lock = on(a);
        assertIllegal(() -> lock.lock(-5, MILLISECONDS), IllegalArgumentException.class, "leaseTime");
        assertIllegal(() -> lock.lock(-2, SECONDS), IllegalArgumentException.class, "leaseTime");
        assertIllegal(() -> lock.lock(500, TimeUnit.MICROSECONDS), IllegalArgumentException.class, "leaseTime");
        assertIllegal(() -> lock.lockInterruptibly(-3, MILLISECONDS), IllegalArgumentException.class, "leaseTime");
        assertIllegal(() -> lock.tryLock(-5, MILLISECONDS), IllegalArgumentException.class, "waitTime");
        assertIllegal(() -> lock.tryLock(-2, 100, MILLISECONDS), IllegalArgumentException.class, "waitTime");
        assertIllegal(() -> lock.tryLock(100, -2, MILLISECONDS), IllegalArgumentException.class, "leaseTime");
        assertIllegal(() -> lock.lockAsync(-3, MILLISECONDS), IllegalArgumentException.class, "leaseTime");
        assertIllegal(() -> lock.tryLockAsync(-3, 100, MILLISECONDS), IllegalArgumentException.class, "waitTime");
        assertIllegal(() -> lock.lock(10, null), NullPointerException.class, "unit");
        assertIllegal(() -> lock.tryLock(10, null), NullPointerException.class, "unit");
        assertIllegal(() -> lock.tryLock(10, 10, null), NullPointerException.class, "unit");
        assertIllegal(() -> lock.lockInterruptibly(10, null), NullPointerException.class, "unit");
        assertIllegal(() -> lock.lock((Duration) null), NullPointerException.class, "leaseTime");

        // nothing was written, nothing is held
        assertThat(raw.keys()).isEmpty();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    private static void assertIllegal(ThrowingCallable call, Class<? extends Throwable> type, String parameter) {
        assertThatThrownBy(call).isInstanceOf(type).hasMessageContaining(parameter);
    }

    @Test
    void conditionsAreNotSupported(LockClient a) {
        assertThatThrownBy(() -> on(a).newCondition()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void keyOfTheWrongTypeFailsWithNotALockExceptionNamingTheType(LockClient a) {
        raw.sync().set(name, "x");
        DistributedLock lock = on(a);
        for (ThrowingCallable call : List.<ThrowingCallable>of(lock::lock, lock::tryLock,
                () -> lock.tryLock(100, MILLISECONDS), () -> lock.lock(1, SECONDS))) {
            assertThatThrownBy(call).isInstanceOf(io.dlock.NotALockException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("holds a string, not a lock")
                    .hasMessageNotContaining("user_script");
        }
        Throwable async = Workers.failureOf(lock.lockAsync(), TASK_BOUND);
        assertThat(async).isInstanceOf(io.dlock.NotALockException.class).hasMessageContaining("holds a string");
        assertThat(raw.sync().get(name)).as("the foreign key is untouched").isEqualTo("x");
        raw.sync().del(name);
    }

    // ------------------------------------------------------------------------------------------ failures

    /**
     * The outage rule (see {@link DistributedLock}): while Redis is unreachable every call with a bound fails fast with
     * {@link LockException}, while acquisitions without a wait limit keep trying until Redis is back ({@code lock()}),
     * or until interrupted ({@code lockInterruptibly()}) or cancelled ({@code lockAsync()}).
     */
    @Test
    @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS, commandTimeoutMillis = 450)
    void unreachableRedisFailsBoundedCallsFastWhileUnboundedWaitsRideItOut(RedisTopology topology, LockClient a)
            throws Exception {
        DistributedLock held = on(a, name + ":held");
        held.lock(30, SECONDS);
        DistributedLock lock = on(a);

        Future<Long> blocked;
        takeDown(topology);
        try {
            assertFailsFast("tryLock()", lock::tryLock, name);
            assertFailsFast("tryLock(500 ms)", () -> lock.tryLock(500, MILLISECONDS), name);
            assertFailsFast("isLocked()", lock::isLocked, name);
            assertFailsFast("unlock()", held::unlock, name + ":held");
            assertThat(Workers.failureOf(lock.tryLockAsync(), Duration.ofMillis(FAIL_FAST_MS)))
                    .isInstanceOf(LockException.class);

            // lock() keeps waiting (the interrupt flag does not stop it either)
            blocked = workers.submit(() -> {
                lock.lock();
                long at = System.nanoTime();
                lock.unlock();
                return at;
            });
            // lockInterruptibly() keeps waiting until interrupted
            CountDownLatch started = new CountDownLatch(1);
            Thread[] thread = new Thread[1];
            Future<Throwable> interruptible = workers.submit(() -> {
                thread[0] = Thread.currentThread();
                started.countDown();
                try {
                    lock.lockInterruptibly();
                    lock.unlock();
                    return null;
                } catch (InterruptedException e) {
                    return e;
                }
            });
            // lockAsync() keeps waiting until cancelled
            CompletableFuture<Void> async = lock.as(LockOwner.of(4242L)).lockAsync(LEASE_WATCHDOG, MILLISECONDS);
            assertThat(started.await(5, SECONDS)).isTrue();
            // longer than two command timeouts: they went through failed attempts and kept going
            Await.during(Duration.ofMillis(2500), () -> !blocked.isDone() && !interruptible.isDone()
                    && !async.isDone(), "acquisitions without a wait limit must keep waiting while Redis is down");

            long t0 = System.nanoTime();
            thread[0].interrupt();
            assertThat(Workers.get(interruptible, Duration.ofMillis(FAIL_FAST_MS)))
                    .isInstanceOf(InterruptedException.class);
            assertThat(Await.millisSince(t0)).as("ms until the interrupt ended lockInterruptibly()")
                    .isLessThan(FAIL_FAST_MS);
            assertThat(async.cancel(true)).isTrue();
            assertThat(blocked.isDone()).as("lock() still waits").isFalse();
        } finally {
            bringBack(topology);
        }

        // the blocked lock() gets the lock once Redis is back, and so does everybody else
        long t1 = System.nanoTime();
        Workers.get(blocked, Duration.ofSeconds(20));
        assertThat(Await.millisSince(t1)).as("ms from Redis being back until lock() held the lock")
                .isLessThan(10_000L);
        assertThat(lock.tryLock()).isTrue();
        assertHeldOnWire(name, a, tid(), 1);
        lock.unlock();
        assertThat(lock.as(LockOwner.of(4242L)).isHeldByCurrentThread()).as("the cancelled lockAsync() took nothing")
                .isFalse();
        // the held lock went with the server's data
        assertThat(Unlocks.outcomeOnceRedisAnswers(held, Duration.ofSeconds(10)))
                .as("unlock() of a hold lost with the server's data, once Redis answers")
                .isInstanceOf(IllegalMonitorStateException.class);
    }

    /** Makes every Redis process of the deployment unreachable (stopped). */
    private static void takeDown(RedisTopology topology) {
        if (topology instanceof ClusterTopology cluster) {
            cluster.stop();
        } else {
            ((RedisServer) topology).stop();
        }
    }

    /** Starts them again, with no data. */
    private static void bringBack(RedisTopology topology) {
        if (topology instanceof ClusterTopology cluster) {
            cluster.recover();
        } else {
            ((RedisServer) topology).restart();
        }
    }

    /** commandTimeout (450 ms) with room for retries; never the 10 s default bound or a hang. */
    private static final long FAIL_FAST_MS = 3500;

    private static void assertFailsFast(String what, ThrowingCallable call, String lockName) {
        long t = System.nanoTime();
        assertThatThrownBy(call).as(what).isInstanceOf(LockException.class).hasMessageContaining(lockName);
        assertThat(Await.millisSince(t)).as("ms until %s failed", what).isLessThan(FAIL_FAST_MS);
    }

    // ------------------------------------------------------------------------------------------ exclusion

    /** Touched only inside the lock, deliberately not volatile: the lock must publish it between threads. */
    private int unguarded;

    @Test
    void threadsOfOneClientExcludeEachOther(LockClient a) {
        int threads = 8;
        int iterations = 100;
        runExclusion(List.of(a), threads, iterations);
    }

    @Test
    void clientsExcludeEachOther(LockClient a, LockClient b) {
        runExclusion(List.of(a, b), 3, 60);
    }

    /** {@code threadsPerClient} threads on each client bump {@link #unguarded} {@code iterations} times under the lock. */
    private void runExclusion(List<LockClient> clients, int threadsPerClient, int iterations) {
        unguarded = 0;
        OverlapDetector detector = new OverlapDetector();
        int threads = clients.size() * threadsPerClient;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            LockClient client = clients.get(i % clients.size());
            DistributedLock shared = on(client);
            int style = i % 3;
            results.add(workers.submit(() -> {
                start.await(10, SECONDS);
                for (int n = 0; n < iterations; n++) {
                    // a fresh lock object now and then: instances are cheap and interchangeable
                    DistributedLock lock = n % 5 == 0 ? lock(client, name) : shared;
                    switch (style) {
                        case 0 -> lock.lock();
                        case 1 -> assertThat(lock.tryLock(30, SECONDS)).isTrue();
                        default -> lock.lockInterruptibly();
                    }
                    try {
                        detector.enter();
                        try {
                            int v = unguarded;
                            Thread.yield();
                            unguarded = v + 1;
                        } finally {
                            detector.exit();
                        }
                    } finally {
                        lock.unlock();
                    }
                }
                return iterations;
            }));
        }
        int done = 0;
        for (Future<Integer> result : results) {
            done += Workers.get(result, Duration.ofSeconds(45));
        }
        assertThat(detector.maxInside()).as("most threads inside at once").isEqualTo(1);
        assertThat(done).isEqualTo(threads * iterations);
        assertThat(detector.entries()).isEqualTo(threads * iterations);
        assertThat(unguarded).as("increments of a plain field made under the lock").isEqualTo(threads * iterations);
        assertFreeOnWire(name);
    }
}
