package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.HeldLock;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockClient#heldLocks()} names each hold's {@link LockKind}: the kind of the lock whose acquisition began it,
 * as recorded when the hold was created (the client never guesses it from the hold's Redis field or class).
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 30, unit = SECONDS)
class HeldLocksIT {

    /** An async owner id far from any thread id of the test JVM. */
    private static final long OWNER = 7_000_001L;

    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:HeldLocksIT:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void eachKindIsReportedAsItself(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        DistributedLock other = a.getLock(kind, name + ":other");
        lock.lock();
        lock.lock();
        other.as(LockOwner.of(OWNER)).lockAsync(DistributedLock.LEASE_WATCHDOG, SECONDS).get(10, SECONDS);
        try {
            List<HeldLock> held = a.heldLocks();
            assertThat(held).extracting(HeldLock::kind).containsOnly(kind);
            assertThat(held).filteredOn(h -> h.name().equals(name)).singleElement().satisfies(h -> {
                assertThat(h.ownerId()).isEqualTo(Thread.currentThread().getId());
                assertThat(h.holdCount()).isEqualTo(2);
                assertThat(h.renewedByWatchdog()).isTrue();
            });
            assertThat(held).filteredOn(h -> h.name().equals(name + ":other")).singleElement().satisfies(h -> {
                assertThat(h.ownerId()).isEqualTo(OWNER);
                assertThat(h.holdCount()).isEqualTo(1);
            });
        } finally {
            lock.unlock();
            lock.unlock();
            other.as(LockOwner.of(OWNER)).unlockAsync().get(10, SECONDS);
        }
        assertThat(a.heldLocks()).isEmpty();
        Leaks.assertClientIdle(a);
    }

    @Test
    void aHoldKeepsTheKindThatBeganItWhenAnotherKindOfTheSameHashReenters(LockClient a) {
        DistributedLock plain = a.getLock(name);
        FencedLock fenced = a.getFencedLock(name);
        plain.lock();
        long token = fenced.lockAndGetToken(); // the same hash field: a re-entry of the plain hold, with a token
        try {
            assertThat(a.heldLocks()).singleElement().satisfies(h -> {
                assertThat(h.kind()).isEqualTo(LockKind.PLAIN);
                assertThat(h.holdCount()).isEqualTo(2);
            });
            assertThat(fenced.getToken()).isEqualTo(token);
        } finally {
            fenced.unlock();
            plain.unlock();
        }
        fenced.lockAndGetToken();
        try {
            assertThat(a.heldLocks()).singleElement().extracting(HeldLock::kind).isEqualTo(LockKind.FENCED);
        } finally {
            fenced.unlock();
        }
        Leaks.assertClientIdle(a);
    }

    @Test
    void getLockOfAKindIsTheLockOfThatKind(LockClient a) {
        assertThat(a.getLock(LockKind.PLAIN, name).getClass()).isEqualTo(a.getLock(name).getClass());
        assertThat(a.getLock(LockKind.FAIR, name).getClass()).isEqualTo(a.getFairLock(name).getClass());
        assertThat(a.getLock(LockKind.FENCED, name)).isInstanceOf(FencedLock.class);
        assertThat(a.getLock(LockKind.READ, name).getClass())
                .isEqualTo(a.getReadWriteLock(name).readLock().getClass());
        assertThat(a.getLock(LockKind.WRITE, name).getClass())
                .isEqualTo(a.getReadWriteLock(name).writeLock().getClass());
    }
}
