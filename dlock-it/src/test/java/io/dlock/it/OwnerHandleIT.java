package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import io.dlock.LockKind;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
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

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Owner handles ({@link LockClient#newOwner()}, {@link DistributedLock#as}) on every lock kind: a view acts for its
 * owner and not for the calling thread, in the sync and the async methods alike; holds are reentrant per owner and
 * may be released from any thread; two owners exclude each other also on one thread.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class OwnerHandleIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private String name;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:OwnerHandleIT:" + info.getTestMethod().orElseThrow().getName() + ":"
                + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
        workers = new Workers("owner-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    /** The field of {@code owner}'s hold in the lock hash, as {@code kind} writes it. */
    private static String field(LockKind kind, LockClient client, LockOwner owner) {
        return RawRedis.field(client.getId(), owner.id()) + (kind == LockKind.WRITE ? ":write" : "");
    }

    @Test
    void newOwnersAreNegativeDistinctAndNeverAThread(LockClient a, LockClient b) {
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            LockOwner owner = (i % 2 == 0 ? a : b).newOwner();
            assertThat(owner.id()).isNegative();
            assertThat(ids.add(owner.id())).as("unique in the JVM, across clients").isTrue();
        }
        assertThat(LockOwner.ofCurrentThread()).isEqualTo(LockOwner.ofThread(Thread.currentThread()))
                .isEqualTo(LockOwner.of(Thread.currentThread().getId()))
                .hasToString("LockOwner[" + Thread.currentThread().getId() + "]");
        assertThat(LockOwner.ofCurrentThread().id()).isPositive();
        assertThatThrownBy(() -> LockOwner.ofThread(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> a.getLock(name).as(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("owner");
    }

    @ParameterizedTest
    @EnumSource(value = LockKind.class, names = "READ", mode = EnumSource.Mode.EXCLUDE)
    void twoOwnersExcludeEachOtherOnOneThread(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        LockOwner first = a.newOwner();
        LockOwner second = a.newOwner();

        assertThat(lock.as(first).tryLock()).isTrue();
        assertThat(raw.hgetall(name)).containsKey(field(kind, a, first));
        assertThat(lock.as(second).tryLock()).as("the other owner, same thread").isFalse();
        assertThat(lock.as(second).tryLock(100, MILLISECONDS)).isFalse();
        assertThat(lock.as(second).tryLockAsync().get(10, SECONDS)).isFalse();
        assertThat(lock.tryLock()).as("the calling thread is a third owner").isFalse();

        assertThat(lock.as(first).isHeldByCurrentThread()).as("held by the view's owner").isTrue();
        assertThat(lock.as(second).isHeldByCurrentThread()).isFalse();
        assertThat(lock.isHeldByCurrentThread()).as("not by the thread").isFalse();
        assertThat(lock.as(first).getHoldCount()).isEqualTo(1);
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.as(first).leaseValidFor()).isPositive();
        assertThat(lock.leaseValidFor()).isZero();
        assertThat(lock.as(second).isLocked()).as("a question for nobody in particular").isTrue();

        lock.as(first).unlock();
        assertThat(lock.as(second).tryLock()).isTrue();
        assertThatThrownBy(() -> lock.as(first).unlock()).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name).hasMessageContaining(RawRedis.field(a.getId(), first.id()));
        lock.as(second).unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void readersOfTwoOwnersShareAndCountApart(LockClient a) throws Exception {
        DistributedLock read = a.getReadWriteLock(name).readLock();
        LockOwner first = a.newOwner();
        LockOwner second = a.newOwner();
        read.as(first).lock();
        read.as(first).lock();
        assertThat(read.as(second).tryLock()).isTrue();
        assertThat(read.as(first).getHoldCount()).isEqualTo(2);
        assertThat(read.as(second).getHoldCount()).isEqualTo(1);
        assertThat(read.getHoldCount()).as("the thread holds none").isZero();
        workers.call(WAIT, () -> {
            read.as(first).unlock();
            read.as(first).unlock();
            return null;
        });
        read.as(second).unlockAsync().get(10, SECONDS);
        assertThat(raw.exists(name)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aHoldIsReentrantPerOwnerAndReleasedFromAnyThread(LockKind kind, LockClient a, LockClient b) {
        DistributedLock lock = a.getLock(kind, name);
        LockOwner owner = a.newOwner();
        lock.as(owner).lock();
        lock.as(owner).lock(5, SECONDS);
        assertThat(lock.as(owner).getHoldCount()).isEqualTo(2);
        // another lock object of the client, on another thread, sees and releases the same hold
        int left = workers.call(WAIT, () -> {
            DistributedLock other = a.getLock(kind, name).as(owner);
            assertThat(other.isHeldByCurrentThread()).isTrue();
            other.unlock();
            return other.getHoldCount();
        });
        assertThat(left).isEqualTo(1);
        DistributedLock excluded = kind == LockKind.READ ? b.getReadWriteLock(name).writeLock() : b.getLock(kind, name);
        assertThat(excluded.tryLock()).as("still held, for another client").isFalse();
        workers.call(WAIT, () -> {
            lock.as(owner).unlockAsync().join();
            return null;
        });
        assertThat(lock.as(owner).isHeldByCurrentThread()).isFalse();
        assertThat(raw.exists(name)).as("the last release freed the lock").isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = LockKind.class, names = "READ", mode = EnumSource.Mode.EXCLUDE)
    void asyncTwinsActForTheOwner(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        DistributedLock first = lock.as(a.newOwner());
        DistributedLock second = lock.as(a.newOwner());

        first.lockAsync().get(10, SECONDS);
        assertThat(second.tryLockAsync(50, DistributedLock.LEASE_WATCHDOG, MILLISECONDS).get(10, SECONDS))
                .isFalse();
        CompletableFuture<Void> waiting = second.lockAsync(5, SECONDS);
        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        // the holder lets go on another thread; the waiter gets the lock
        workers.call(WAIT, () -> first.unlockAsync().get(10, SECONDS));
        waiting.get(10, SECONDS);
        assertThat(second.isHeldByCurrentThread()).isTrue();
        assertThat(second.leaseValidFor()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(first.unlockAsync()).failsWithin(WAIT).withThrowableThat()
                .havingRootCause().isInstanceOf(IllegalMonitorStateException.class);
        second.unlockAsync().get(10, SECONDS);
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aFencedViewIsAFencedLockWithTheOwnersToken(LockClient a) throws Exception {
        FencedLock fenced = a.getFencedLock(name);
        LockOwner owner = a.newOwner();
        FencedLock view = fenced.as(owner);
        long token = view.lockAndGetToken();
        assertThat(fenced.getToken()).as("the thread holds nothing").isNull();
        assertThatThrownBy(fenced::requireToken).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(fenced.getName());
        assertThat(workers.call(WAIT, () -> fenced.as(owner).requireToken())).isEqualTo(token);
        assertThat(workers.call(WAIT, () -> fenced.as(owner).getToken())).isEqualTo(token);
        assertThat(fenced.as(a.newOwner()).tryLockAndGetToken()).as("another owner").isNull();
        view.unlock();

        LockOwner next = a.newOwner();
        fenced.as(next).lockAsync().get(10, SECONDS);
        assertThat(fenced.as(next).getToken()).isGreaterThan(token);
        fenced.as(next).unlock();
    }

    @Test
    void aReadWriteViewActsForItsOwnerOnBothSides(LockClient a) throws Exception {
        DistributedReadWriteLock rw = a.getReadWriteLock(name);
        LockOwner writer = a.newOwner();
        LockOwner reader = a.newOwner();
        DistributedReadWriteLock asWriter = rw.as(writer);
        assertThat(asWriter.getName()).isEqualTo(name);
        asWriter.writeLock().lock();
        asWriter.readLock().lock(); // the writer also reads (downgrade), as the same owner
        assertThat(rw.as(reader).readLock().tryLock()).isFalse();
        assertThat(rw.readLock().tryLock()).as("the thread is another owner").isFalse();
        workers.call(WAIT, () -> {
            rw.as(writer).writeLock().unlock();
            return null;
        });
        assertThat(rw.as(reader).readLock().tryLock()).as("downgraded: readers share").isTrue();
        assertThat(rw.as(reader).writeLock().tryLockAsync()).failsWithin(WAIT).withThrowableThat()
                .havingRootCause().isInstanceOf(IllegalMonitorStateException.class)
                .withMessageContaining("upgrading");
        asWriter.readLock().unlock();
        rw.as(reader).readLock().unlock();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void theCurrentThreadsOwnerSeesWhatTheThreadHolds(LockClient a) {
        DistributedLock lock = a.getLock(name);
        lock.lock();
        LockOwner me = LockOwner.ofCurrentThread();
        assertThat(workers.call(WAIT, () -> lock.as(me).getHoldCount())).isEqualTo(1);
        assertThat(workers.call(WAIT, () -> lock.as(me).leaseValidFor())).isPositive();
        // a thread that died holding a lock can have it released by another one
        workers.call(WAIT, () -> {
            lock.as(me).unlock();
            return null;
        });
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isLocked()).isFalse();
    }

    /**
     * An owner that cancels a waiting acquisition and asks again at once, many times over (some cancelled while their
     * first attempt is in flight, so their clean-up comes after the next request): in the end the owner waits in the
     * fair queue, is woken by the holder's release (the slot is the default 5 minutes: a waiter missing from the queue
     * would sleep for a third of that), holds once, and nothing is left behind. (The ordering itself is checked in
     * {@code HoldTableTest}.)
     */
    @Test
    void cancelThenAcquireAgainNeverRacesTheCleanup(LockClient a) throws Exception {
        DistributedLock fair = a.getFairLock(name);
        DistributedLock holder = fair.as(a.newOwner());
        DistributedLock waiter = fair.as(a.newOwner());
        holder.lock();
        List<CompletableFuture<Void>> cancelled = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            CompletableFuture<Void> attempt = waiter.lockAsync();
            if (i % 3 == 1) {
                Thread.sleep(5); // sometimes after the attempt was answered, sometimes while it is in flight
            }
            assertThat(attempt.cancel(false)).isTrue();
            cancelled.add(attempt);
        }
        CompletableFuture<Void> last = waiter.lockAsync();
        Thread.sleep(200);
        assertThat(last).isNotDone();
        Future<?> release = workers.submit(() -> {
            holder.unlock();
            return null;
        });
        Workers.get(release, WAIT);
        last.get(5, SECONDS);
        assertThat(waiter.getHoldCount()).as("one hold, whatever the cancelled ones did").isEqualTo(1);
        waiter.unlock();
        assertThat(fair.isLocked()).isFalse();
        Await.until(WAIT, () -> raw.dbsize() == 0, "nothing left in Redis: " + raw.keys());
        assertThat(cancelled).allMatch(CompletableFuture::isCancelled);
    }
}
