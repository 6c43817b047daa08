package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockClient;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Unlocks;
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

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A holder learns, through its {@link LeaseLostListener}s, that a hold it believes it has is gone: once, with the
 * right reason, on a thread that is not a Redis I/O thread.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = LeaseLostIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class LeaseLostIT {

    static final int WATCHDOG_MS = 1500;

    private String name;
    private RawRedis raw;

    /** One call of a listener: the event and the thread it ran on. */
    record Call(LeaseLostEvent event, String thread) {
    }

    /** Records every call; thread-safe. */
    static final class Recorder implements LeaseLostListener {
        final List<Call> calls = new CopyOnWriteArrayList<>();

        @Override
        public void leaseLost(LeaseLostEvent event) {
            calls.add(new Call(event, Thread.currentThread().getName()));
        }
    }

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:LeaseLostIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void tearDown() {
        raw.close();
    }

    @Test
    void deletedKeyIsReportedOnceAsRemoved(LockClient a) {
        Recorder recorder = new Recorder();
        AtomicInteger throwingCalls = new AtomicInteger();
        // a listener that throws must not keep the others from being told
        a.addLeaseLostListener(event -> {
            throwingCalls.incrementAndGet();
            throw new IllegalStateException("listener failure (expected by the test)");
        });
        a.addLeaseLostListener(recorder);
        DistributedLock lock = a.getLock(name);
        long me = Thread.currentThread().getId();
        lock.lock();
        assertThat(Leaks.diagnostics(a).renewedHolds()).isEqualTo(1);

        Instant before = Instant.now();
        raw.sync().del(name);
        Duration noticed = Await.until(Duration.ofMillis(WATCHDOG_MS + 500), () -> !recorder.calls.isEmpty(),
                "the watchdog should find the hold gone within one renewal period");
        Await.during(Duration.ofMillis(WATCHDOG_MS), () -> recorder.calls.size() == 1,
                () -> "told more than once: " + recorder.calls);

        Call call = recorder.calls.get(0);
        assertThat(call.event().reason()).isEqualTo(LeaseLostEvent.Reason.REMOVED);
        assertThat(call.event().lockName()).isEqualTo(name);
        assertThat(call.event().ownerId()).isEqualTo(me);
        assertThat(call.event().at()).isAfterOrEqualTo(before.minusMillis(50));
        assertNotAnIoThread(call.thread());
        assertThat(throwingCalls.get()).as("calls of the throwing listener").isEqualTo(1);
        assertThat(noticed).isLessThan(Duration.ofMillis(WATCHDOG_MS + 500));

        Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(a).renewedHolds() == 0,
                () -> "still renewing a lost hold: " + Leaks.diagnostics(a));
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
        assertThat(raw.exists(name)).as("renewal must not bring a deleted key back").isFalse();
        Leaks.assertClientIdle(a);
    }

    @Test
    void forceUnlockByAnotherClientIsReportedAsRemoved(LockClient a, LockClient b) {
        Recorder recorder = new Recorder();
        Recorder removed = new Recorder();
        a.addLeaseLostListener(recorder);
        a.addLeaseLostListener(removed);
        a.removeLeaseLostListener(removed);
        Recorder bystander = new Recorder();
        b.addLeaseLostListener(bystander);

        DistributedLock lock = a.getLock(name);
        long me = Thread.currentThread().getId();
        lock.lock();
        lock.lock();
        assertThat(b.getLock(name).forceUnlock()).isTrue();

        Await.until(Duration.ofMillis(WATCHDOG_MS + 500), () -> !recorder.calls.isEmpty(),
                "a force-unlocked hold should be reported");
        Await.during(Duration.ofMillis(WATCHDOG_MS), () -> recorder.calls.size() == 1,
                () -> "told more than once (one event per hold, not per re-entry): " + recorder.calls);
        LeaseLostEvent event = recorder.calls.get(0).event();
        assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.REMOVED);
        assertThat(event.lockName()).isEqualTo(name);
        assertThat(event.ownerId()).isEqualTo(me);
        assertThat(removed.calls).as("a removed listener").isEmpty();
        assertThat(bystander.calls).as("the other client's listener").isEmpty();

        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        Leaks.assertClientIdle(a);
        Leaks.assertClientIdle(b);
    }

    /** The command timeout (default 3 s) is longer than the lease: a hung renewal must not delay the report. */
    @Test
    void unreachableRedisIsReportedOnceTheLeaseRanOut(RedisServer server, LockClient a) {
        lostWhileRedisIsDown(server, a);
    }

    /** The command timeout is shorter than a renewal period: renewals fail (and are retried) before the lease ends. */
    @Test
    @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS, commandTimeoutMillis = 300)
    void unreachableRedisIsReportedOnceTheLeaseRanOutWithShortCommandTimeout(RedisServer server, LockClient a) {
        lostWhileRedisIsDown(server, a);
    }

    private void lostWhileRedisIsDown(RedisServer server, LockClient a) {
        Recorder recorder = new Recorder();
        a.addLeaseLostListener(recorder);
        DistributedLock lock = a.getLock(name);
        long me = Thread.currentThread().getId();
        lock.lock();

        long stopped = System.nanoTime();
        server.stop();
        try {
            Await.until(Duration.ofMillis(WATCHDOG_MS + 1500), () -> !recorder.calls.isEmpty(),
                    "renewal failures should be reported once the lease ran out");
            long reportedAfter = Await.millisSince(stopped);
            // the last renewal was at most a third of the watchdog timeout before the stop, so the lease ran at
            // least about two thirds of it after: an earlier report would cry wolf
            assertThat(reportedAfter).as("ms from stop to report").isGreaterThanOrEqualTo(WATCHDOG_MS * 2L / 3 - 100);
            Await.during(Duration.ofMillis(WATCHDOG_MS), () -> recorder.calls.size() == 1,
                    () -> "told more than once: " + recorder.calls);
            Call call = recorder.calls.get(0);
            assertThat(call.event().reason()).isIn(LeaseLostEvent.Reason.RENEWAL_FAILED,
                    LeaseLostEvent.Reason.EXPIRED);
            assertThat(call.event().lockName()).isEqualTo(name);
            assertThat(call.event().ownerId()).isEqualTo(me);
            assertNotAnIoThread(call.thread());
            assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
            Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(a).renewedHolds() == 0,
                    () -> "still renewing a lost hold: " + Leaks.diagnostics(a));
        } finally {
            server.restart();
        }
        // once Redis is back the hold is gone (the server restarted empty): unlock says so
        assertThat(Unlocks.outcomeOnceRedisAnswers(lock, Duration.ofSeconds(15)))
                .as("unlock() of the lost hold, once Redis answers")
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(recorder.calls).hasSize(1);
        Leaks.assertClientIdle(a);
    }

    private static void assertNotAnIoThread(String thread) {
        String lower = thread.toLowerCase(Locale.ROOT);
        assertThat(lower).as("listener thread name")
                .doesNotContain("lettuce")
                .doesNotContain("nioeventloop")
                .doesNotContain("epoll")
                .doesNotContain("kqueue")
                .doesNotContain("iouring");
    }
}
