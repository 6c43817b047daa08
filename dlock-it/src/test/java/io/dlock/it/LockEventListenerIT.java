package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockEventListener;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public lock event hook ({@link LockClient#addEventListener}) on a real Redis, with a listener of the test's own
 * (no Micrometer): which events come, in which order, carrying which hold, and that a listener that throws disturbs
 * nothing. An acquisition's end reaches the caller and the listener on different threads, so endings are awaited.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = LockEventListenerIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class LockEventListenerIT {

    static final int WATCHDOG_MS = 3000;
    /** Owner id for async acquisitions: far from any thread id of the test JVM. */
    private static final long OTHER_OWNER = 6_000_001L;
    private static final Duration SETTLE = Duration.ofSeconds(5);

    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:LockEventListenerIT:" + info.getTestMethod().orElseThrow().getName();
    }

    /** Every event as a line, and every hold object it was given, in the order heard. */
    private static final class Recorder implements LockEventListener {
        final List<String> lines = new ArrayList<>();
        final List<Hold> holds = new ArrayList<>();

        private synchronized void add(String line, Hold hold) {
            lines.add(line);
            if (hold != null) {
                holds.add(hold);
            }
        }

        synchronized List<String> lines() {
            return List.copyOf(lines);
        }

        synchronized List<Hold> holds() {
            return List.copyOf(holds);
        }

        @Override
        public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
            add("started " + kind + " " + ownerId, null);
            return new Acquisition() {
                @Override
                public void attempted() {
                    add("attempted " + ownerId, null);
                }

                @Override
                public void granted(Hold hold) {
                    add("granted " + hold.kind() + " " + hold.ownerId() + " x" + hold.holdCount(), hold);
                }

                @Override
                public void ended(Outcome outcome, Throwable failure) {
                    add("ended " + outcome + " " + ownerId, null);
                }
            };
        }

        @Override
        public void handedOff(Hold receiver) {
            add("handedOff " + receiver.kind() + " " + receiver.ownerId(), receiver);
        }

        @Override
        public void holdReleased(Hold hold) {
            add("released " + hold.ownerId() + " x" + hold.holdCount(), hold);
        }

        @Override
        public void holdLost(Hold hold, LeaseLostEvent.Reason reason) {
            add("lost " + reason, hold);
        }

        @Override
        public void holdDiscarded(Hold hold) {
            add("discarded", hold);
        }
    }

    private static void awaitLine(Recorder recorder, String line) {
        Await.until(SETTLE, () -> recorder.lines().contains(line), () -> "'" + line + "' in " + recorder.lines());
    }

    @Test
    void anAcquisitionReEntryAndReleaseOfOneHold(LockClient a) {
        Recorder events = new Recorder();
        a.addEventListener(events);
        long me = Thread.currentThread().getId();
        DistributedLock lock = a.getLock(LockKind.FAIR, name);

        lock.lock();
        // "ended" comes on the thread that completes the acquisition, possibly just after the caller learned of it
        // (the Javadoc's order is per acquisition): the second acquisition starts once the first one's end is heard
        awaitLine(events, "ended ACQUIRED " + me);
        lock.lock();
        lock.unlock();
        lock.unlock();

        awaitLine(events, "released " + me + " x0");
        Await.until(SETTLE, () -> events.lines().stream().filter(("ended ACQUIRED " + me)::equals).count() == 2,
                () -> "both ends in " + events.lines());
        assertThat(events.lines()).containsExactly("started FAIR " + me, "attempted " + me,
                "granted FAIR " + me + " x1", "ended ACQUIRED " + me, "started FAIR " + me, "attempted " + me,
                "granted FAIR " + me + " x2", "ended ACQUIRED " + me, "released " + me + " x0");
        List<LockEventListener.Hold> holds = events.holds();
        assertThat(holds).hasSize(3).allSatisfy(h -> assertThat(h).isSameAs(holds.get(0)));
        assertThat(holds.get(0).lockName()).isEqualTo(name);
        a.removeEventListener(events);
        Leaks.assertClientIdle(a);
    }

    @Test
    void aHandOffBeginsTheWaitersHoldWithoutAGrant(LockClient a) throws Exception {
        DistributedLock lock = a.getLock(name);
        Recorder events = new Recorder();
        a.addEventListener(events);
        lock.lock();
        CompletableFuture<Void> waiter = lock.as(LockOwner.of(OTHER_OWNER)).lockAsync(LEASE_WATCHDOG, MILLISECONDS);
        Leaks.awaitWaiters(a, 1);
        lock.unlock();
        waiter.get(10, SECONDS);
        lock.as(LockOwner.of(OTHER_OWNER)).unlockAsync().get(10, SECONDS);

        awaitLine(events, "released " + OTHER_OWNER + " x0");
        awaitLine(events, "ended ACQUIRED " + OTHER_OWNER);
        List<String> lines = events.lines();
        assertThat(lines).contains("handedOff PLAIN " + OTHER_OWNER)
                .doesNotContain("granted PLAIN " + OTHER_OWNER + " x1");
        assertThat(lines.indexOf("handedOff PLAIN " + OTHER_OWNER))
                .isLessThan(lines.indexOf("released " + OTHER_OWNER + " x0"));
        LockEventListener.Hold received = events.holds().stream().filter(h -> h.ownerId() == OTHER_OWNER)
                .findFirst().orElseThrow();
        assertThat(events.holds()).filteredOn(h -> h.ownerId() == OTHER_OWNER)
                .allSatisfy(h -> assertThat(h).isSameAs(received));
        Leaks.assertClientIdle(a);
    }

    @Test
    void aBusyTryLockTimesOutAndADeletedKeyIsALostHold(RedisServer server, LockClient a, LockClient b)
            throws Exception {
        Recorder events = new Recorder();
        a.addEventListener(events);
        DistributedLock held = b.getLock(name);
        held.lock();
        assertThat(a.getLock(name).tryLock(50, MILLISECONDS)).isFalse();
        awaitLine(events, "ended TIMED_OUT " + Thread.currentThread().getId());
        held.unlock();

        DistributedLock lock = a.getLock(name);
        lock.lock();
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            raw.sync().del(name);
        }
        Await.until(Duration.ofMillis(WATCHDOG_MS * 2L), () -> events.lines().contains("lost REMOVED"),
                () -> "lost REMOVED in " + events.lines());
        assertThat(events.lines()).doesNotContain("released " + Thread.currentThread().getId() + " x0");
        Leaks.assertClientIdle(a);
    }

    @Test
    void aListenerThatThrowsDisturbsNeitherTheLocksNorTheOtherListeners(LockClient a) throws Exception {
        LockEventListener broken = new LockEventListener() {
            @Override
            public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
                throw new IllegalStateException("a listener bug (expected in this test's log)");
            }

            @Override
            public void holdReleased(Hold hold) {
                throw new IllegalStateException("a listener bug (expected in this test's log)");
            }
        };
        Recorder events = new Recorder();
        a.addEventListener(broken);
        a.addEventListener(events);
        DistributedLock lock = a.getLock(LockKind.WRITE, name);
        for (int i = 0; i < 3; i++) {
            lock.lock();
            lock.unlock();
        }
        awaitLine(events, "released " + Thread.currentThread().getId() + " x0");
        Await.until(SETTLE, () -> events.lines().stream().filter(l -> l.startsWith("released")).count() == 3,
                () -> "three releases in " + events.lines());

        a.removeEventListener(events);
        a.removeEventListener(broken);
        lock.lock();
        lock.unlock();
        Await.during(Duration.ofMillis(300), () -> events.lines().stream().filter(l -> l.startsWith("started"))
                .count() == 3, () -> "a removed listener was told: " + events.lines());
        Leaks.assertClientIdle(a);
    }
}
