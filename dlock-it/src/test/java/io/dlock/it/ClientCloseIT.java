package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.MultiLock;
import io.dlock.it.support.Leaks;
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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code close()} while holds are live and acquisitions wait: renewal stops and the holders are told
 * ({@code RENEWAL_FAILED}) before close returns, their locks expire in Redis with their lease, the waiters fail
 * with {@link LockException}, and a waiting fair waiter's place in the queue is gone by the time close returns
 * (its give-up script goes out before the connections close), within a bound.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class ClientCloseIT {
    private static final int WATCHDOG_MS = 900;
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(250);

    private String name;
    private RawRedis raw;
    private Workers workers;
    private RedisServer server;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        this.server = server;
        name = "it:ClientCloseIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("close-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    @Test
    void closeTellsHoldersStopsRenewalAndTakesFairWaitersOutOfTheQueue(LockClient b) throws Exception {
        LockClient a = LockClient.create(LockClientConfig.builder().redisUri(server.uri())
                .watchdogTimeout(Duration.ofMillis(WATCHDOG_MS)).commandTimeout(COMMAND_TIMEOUT).build());
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        String held = name + ":held";
        String fair = name + ":fair";
        DistributedLock lock = a.getLock(held);
        lock.lock();
        b.getFairLock(fair).lock(60, SECONDS);
        Future<Throwable> fairWaiter = workers.submit(() -> {
            try {
                a.getFairLock(fair).lock();
                return null;
            } catch (LockException e) {
                return e;
            }
        });
        String queue = "redisson_lock_queue:{" + fair + "}";
        Await.until(Duration.ofSeconds(5), () -> raw.sync().llen(queue) == 1, "a's waiter should queue");

        long start = System.nanoTime();
        a.close();
        assertThat(Await.millisSince(start)).as("close returns within about the command timeout")
                .isLessThan(COMMAND_TIMEOUT.toMillis() + 1500);
        assertThat(raw.sync().llen(queue)).as("the closed client's fair waiter left the queue").isZero();
        assertThat(Workers.get(fairWaiter, Duration.ofSeconds(5))).isInstanceOf(LockException.class);
        Await.until(Duration.ofSeconds(2), () -> lost.size() == 1, () -> "the holder should be told: " + lost);
        assertThat(lost.get(0).lockName()).isEqualTo(held);
        assertThat(lost.get(0).reason()).isEqualTo(LeaseLostEvent.Reason.RENEWAL_FAILED);
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class);

        Await.until(Duration.ofMillis(WATCHDOG_MS + 1500), () -> !raw.exists(held),
                "the closed client's hold should expire with its lease");
        assertThat(b.getLock(held).tryLock()).as("another client gets it").isTrue();
        b.getLock(held).unlock();
        b.getFairLock(fair).unlock();
        Leaks.assertClientIdle(b);
    }

    /**
     * The front door's close rule for every kind at once: a multi-lock taken member after member that holds its first
     * member and waits for the second, a semaphore waiter and a latch awaiter. Close fails each waiter with
     * {@link LockException}, and by the time it returns nothing the closed client took is left in Redis (the
     * multi-lock's first member was given back before the connections closed, not left to its lease).
     */
    @Test
    void closeFailsAWaitingMultiLockAndEveryOtherKindAndLeavesNothingHeld(LockClient b) throws Exception {
        LockClient a = LockClient.create(LockClientConfig.builder().redisUri(server.uri())
                .watchdogTimeout(Duration.ofSeconds(30)).commandTimeout(COMMAND_TIMEOUT).build());
        String first = "{" + name + "-a}"; // first in the global order (by name)
        String second = "{" + name + "-b}"; // another slot: taken member after member, not in one script
        String sem = name + ":sem";
        String latch = name + ":latch";
        b.getLock(second).lock(60, SECONDS);
        b.getSemaphore(sem).trySetPermits(0);
        b.getCountDownLatch(latch).trySetCount(1);
        MultiLock multi = a.getMultiLock(a.getLock(first), a.getLock(second));
        Future<Throwable> multiWaiter = workers.submit(() -> failureOf(multi::lock));
        Future<Throwable> semWaiter = workers.submit(() -> failureOf(() -> a.getSemaphore(sem).acquire()));
        Future<Throwable> latchWaiter = workers.submit(() -> failureOf(() -> a.getCountDownLatch(latch).await()));
        Await.until(Duration.ofSeconds(5), () -> raw.exists(first), "a's multi-lock should take its first member");
        Leaks.awaitWaiters(a, 4); // the multi-lock, its member's wait, the semaphore's, the latch's

        long start = System.nanoTime();
        a.close();
        assertThat(Await.millisSince(start)).as("close returns within about the command timeout")
                .isLessThan(COMMAND_TIMEOUT.toMillis() + 1500);
        assertThat(raw.exists(first)).as("the multi-lock's first member was given back before close returned")
                .isFalse();
        for (Future<Throwable> waiter : List.of(multiWaiter, semWaiter, latchWaiter)) {
            assertThat(Workers.get(waiter, Duration.ofSeconds(5))).isInstanceOf(LockException.class)
                    .hasMessageContaining("closed");
        }
        assertThat(b.getSemaphore(sem).availablePermits()).as("nothing taken from the semaphore").isZero();
        assertThatThrownBy(multi::lock).isInstanceOf(LockException.class).hasMessageContaining("closed");
        assertThat(multi.lockAsync()).failsWithin(Duration.ofSeconds(1)).withThrowableThat()
                .withCauseInstanceOf(LockException.class);
        b.getLock(second).unlock();
        b.getCountDownLatch(latch).countDown();
        Leaks.assertClientIdle(b);
    }

    private interface Call {
        void run() throws Exception;
    }

    private static Throwable failureOf(Call call) {
        try {
            call.run();
            return null;
        } catch (Exception e) {
            return e;
        }
    }
}
