package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hold with a fixed lease (a lock taken with a lease time, a leased permit taken with one) whose lease runs out
 * while its owner still believes in it is reported to the lease-lost listeners at the end of its known validity
 * ({@code leaseValidFor()} reaching zero: the lease counted from when the acquiring command was sent, less 1% and
 * 2 ms): never sooner, since Redis keeps it until then, and no later than that plus the timer's and executor's
 * lateness — not at the watchdog's next renewal round (every third of the watchdog timeout: 3 s here), by which time
 * another client may have been granted it. Real Redis, real threads; the bounds are the client's monotonic clock
 * read before the acquisition was sent and after it returned.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = FixedLeaseEndIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class FixedLeaseEndIT {

    /** Renewal rounds every 3 s: far from every lease below, so a report at a round misses the bound. */
    static final int WATCHDOG_MS = 9_000;
    /** How late the report may come after the lease's end (timer and executor on a loaded 2-core host). */
    private static final long SLACK_MS = 250;

    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:FixedLeaseEndIT:" + info.getTestMethod().orElseThrow().getName();
    }

    /** Drift margin of a lease, as the client counts it: 1% plus 2 ms. */
    private static long marginMs(long leaseMs) {
        return leaseMs / 100 + 2;
    }

    /** The time (System.nanoTime) the first loss of {@code lockName} was reported to a listener of {@code client}. */
    private static CompletableFuture<Long> lossReportedAt(LockClient client, String lockName) {
        CompletableFuture<Long> reportedAt = new CompletableFuture<>();
        LeaseLostListener listener = event -> {
            if (event.lockName().equals(lockName)) {
                long now = System.nanoTime();
                assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.EXPIRED);
                reportedAt.complete(now);
            }
        };
        client.addLeaseLostListener(listener);
        reportedAt.whenComplete((at, e) -> client.removeLeaseLostListener(listener));
        return reportedAt;
    }

    /**
     * Asserts the report came within [{@code before} + lease − margin, {@code after} + lease + slack]; waits for it
     * at most a renewal round past the lease, so that the unfixed client's late report is measured, not timed out.
     */
    private static void assertReportedAtTheLeaseEnd(CompletableFuture<Long> reported, long before, long after,
                                                    long leaseMs) throws Exception {
        long at = reported.get(leaseMs + WATCHDOG_MS / 3 + 2_000, MILLISECONDS);
        double fromBeforeMs = (at - before) / 1e6;
        double fromAfterMs = (at - after) / 1e6;
        assertThat(fromBeforeMs).as("ms from before the acquisition was sent until the loss was reported (never "
                + "before the validity could have ended)").isGreaterThanOrEqualTo(leaseMs - marginMs(leaseMs));
        assertThat(fromAfterMs).as("ms from the grant until the loss was reported (at the lease's end, not the next "
                + "renewal round)").isLessThanOrEqualTo(leaseMs + SLACK_MS);
    }

    @Test
    void aLockHeldWithAFixedLeaseIsReportedLostAtTheEndOfItsLease(LockClient a) throws Exception {
        for (long leaseMs : new long[] {400, 700, 1_100}) {
            DistributedLock lock = a.getLock(name + ":" + leaseMs);
            CompletableFuture<Long> reported = lossReportedAt(a, lock.getName());
            long before = System.nanoTime();
            lock.lock(leaseMs, MILLISECONDS);
            long after = System.nanoTime();
            assertReportedAtTheLeaseEnd(reported, before, after, leaseMs);
            assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
        }
    }

    /**
     * The owner is told about when another client waiting for the lock gets it, not a renewal round later. The client
     * counts the lease out a margin (1% + 2 ms) before Redis does, so on an idle host the report comes first; on a
     * loaded one the timer and the executor may be late by more than that margin, so the bound is the slack.
     */
    @Test
    void theOwnerIsToldAboutWhenAWaitingClientGetsTheLock(LockClient a, LockClient b) throws Exception {
        long leaseMs = 2_000;
        DistributedLock lock = a.getLock(name);
        CompletableFuture<Long> reported = lossReportedAt(a, name);
        long before = System.nanoTime();
        lock.lock(leaseMs, MILLISECONDS);
        long after = System.nanoTime();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<Long> theirs = other.submit(() -> {
                DistributedLock lockOfB = b.getLock(name);
                assertThat(lockOfB.tryLock(leaseMs + 5_000, MILLISECONDS)).as("the other client got the lock")
                        .isTrue();
                long gotInAt = System.nanoTime();
                lockOfB.unlock();
                return gotInAt;
            });
            assertReportedAtTheLeaseEnd(reported, before, after, leaseMs);
            long gotInAt = theirs.get(10, SECONDS);
            assertThat((reported.join() - gotInAt) / 1e6).as("ms from when the other client got in until the report")
                    .isLessThanOrEqualTo(SLACK_MS);
        } finally {
            other.shutdownNow();
        }
    }

    /** A lease extended to a shorter one: the report follows the extension's end. */
    @Test
    void aLockWhoseLeaseWasExtendedIsReportedAtTheExtendedEnd(LockClient a) throws Exception {
        DistributedLock lock = a.getLock(name);
        CompletableFuture<Long> reported = lossReportedAt(a, name);
        lock.lock(60, SECONDS);
        long leaseMs = 800;
        long before = System.nanoTime();
        lock.extendLease(Duration.ofMillis(leaseMs));
        long after = System.nanoTime();
        assertReportedAtTheLeaseEnd(reported, before, after, leaseMs);
    }

    @Test
    void aLeasedPermitWithAFixedLeaseIsReportedLostAtTheEndOfItsLease(LockClient a) throws Exception {
        LeasedSemaphore semaphore = a.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(3)).isTrue();
        for (long leaseMs : new long[] {400, 700, 1_100}) {
            CompletableFuture<Long> reported = lossReportedAt(a, name);
            long before = System.nanoTime();
            Optional<Permit> permit = semaphore.tryAcquire(Duration.ofSeconds(5), Duration.ofMillis(leaseMs));
            long after = System.nanoTime();
            assertThat(permit).isPresent();
            assertReportedAtTheLeaseEnd(reported, before, after, leaseMs);
            assertThat(permit.get().leaseValidFor()).isEqualTo(Duration.ZERO);
        }
        // the last one was reported a margin before Redis lets it go
        Await.until(Duration.ofSeconds(5), () -> semaphore.availablePermits() == 3, "each expired permit back");
    }

    /** Watchdog holds are not reported at any lease end (the watchdog renews them). */
    @Test
    void aWatchdogHoldIsNotReportedLost(LockClient a) throws Exception {
        DistributedLock lock = a.getLock(name);
        CompletableFuture<Long> reported = lossReportedAt(a, name);
        lock.lock();
        try {
            assertThat(reported).as("no loss within a renewal round").failsWithin(WATCHDOG_MS / 3 + 500,
                    TimeUnit.MILLISECONDS);
        } finally {
            lock.unlock();
        }
    }
}
