package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.LockLostException;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A hold that vanished from Redis behind its owner's back (another client's forceUnlock; a failover or restart looks
 * the same) is never silently re-created by a re-entry (docs/protocol.md §1.9), on every lock kind: the re-entry
 * fails with {@link LockLostException} naming the lock, changes nothing in Redis, the lease-lost listeners hear
 * {@code REMOVED}, and the owner's outer acquisitions are void. A hold-count read that finds the hold gone reports it
 * the same way. Fixed leases throughout, so that no watchdog renewal finds the hold gone first.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class HoldGoneIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private String name;
    private RawRedis raw;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:HoldGoneIT:" + info.getTestMethod().orElseThrow().getName() + ":"
                + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void tearDown() {
        raw.close();
    }

    private static List<LeaseLostEvent> lostEvents(LockClient client) {
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        client.addLeaseLostListener(lost::add);
        return lost;
    }

    private void assertReportedRemoved(List<LeaseLostEvent> lost) {
        Await.until(WAIT, () -> !lost.isEmpty(), "the lease-lost listeners are told");
        assertThat(lost).singleElement().satisfies(event -> {
            assertThat(event.lockName()).isEqualTo(name);
            assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.REMOVED);
        });
    }

    /** Removed by another client, which then took the lock and let it go: the re-entry must not pretend continuity. */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aReEntryAfterAnotherClientsForceUnlockFailsAndReportsTheLoss(LockKind kind, LockClient a, LockClient b) {
        List<LeaseLostEvent> lost = lostEvents(a);
        DistributedLock lock = a.getLock(kind, name);
        lock.lock(30, SECONDS);
        assertThat(b.getLock(kind, name).forceUnlock()).isTrue();
        DistributedLock other = b.getLock(kind, name);
        assertThat(other.tryLock()).as("another owner held the lock in between").isTrue();
        other.unlock();

        assertThatThrownBy(() -> lock.lock(30, SECONDS)).isInstanceOf(LockLostException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining("gone from Redis")
                .satisfies(e -> assertThat(((LockLostException) e).lockName()).isEqualTo(name));
        assertThat(raw.exists(name)).as("the hold is not re-created").isFalse();
        assertReportedRemoved(lost);
        assertThat(lock.leaseValidFor()).isZero();
        assertThatThrownBy(lock::unlock).as("the outer acquisition is void")
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("'" + name + "'");

        lock.lock(30, SECONDS);
        assertThat(lock.getHoldCount()).as("a new hold, counted from one").isEqualTo(1);
        lock.unlock();
        assertThat(raw.exists(name)).as("one unlock frees the new hold").isFalse();
    }

    /** A single attempt ({@code tryLock()}) and the async form are re-entries too. */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aTryLockOrAsyncReEntryOnAGoneHoldFailsToo(LockKind kind, LockClient a, LockClient b) {
        List<LeaseLostEvent> lost = lostEvents(a);
        DistributedLock lock = a.getLock(kind, name);
        lock.lock(30, SECONDS);
        raw.sync().del(name); // a failover to a replica that never saw the hold looks the same

        assertThatThrownBy(lock::tryLock).isInstanceOf(LockLostException.class);
        assertThat(raw.exists(name)).isFalse();
        assertReportedRemoved(lost);

        lock.lock(30, SECONDS);
        raw.sync().del(name);
        assertThat(lock.lockAsync(30, SECONDS)).failsWithin(WAIT).withThrowableThat().havingRootCause()
                .isInstanceOf(LockLostException.class);
        assertThat(raw.exists(name)).isFalse();
        assertThat(b.getLock(kind, name).tryLock()).as("free for others").isTrue();
    }

    /** Reading the hold count is reading "my hold": a hold Redis no longer has is reported lost at once. */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aHoldCountReadThatFindsTheHoldGoneReportsTheLoss(LockKind kind, LockClient a, LockClient b) {
        List<LeaseLostEvent> lost = lostEvents(a);
        DistributedLock lock = a.getLock(kind, name);
        lock.lock(30, SECONDS);
        assertThat(lock.leaseValidFor()).isPositive();
        assertThat(b.getLock(kind, name).forceUnlock()).isTrue();

        assertThat(lock.getHoldCount()).isZero();
        assertReportedRemoved(lost);
        assertThat(lock.leaseValidFor()).as("no longer believed").isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lost).as("reported once").hasSize(1);
    }
}
