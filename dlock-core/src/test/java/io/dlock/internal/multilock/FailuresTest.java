package io.dlock.internal.multilock;

import io.dlock.DistributedLock;
import io.dlock.LockException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How a multi-lock reports its members' failures, and how it combines their remaining times to live. */
class FailuresTest {

    @Test
    void nothingFailed() {
        assertThat(new Failures("MultiLock[a, b]", "unlock").toException(2)).isNull();
    }

    @Test
    void onlyMonitorFailuresGiveAMonitorException() {
        Failures failures = new Failures("MultiLock[a, b, c]", "unlock");
        IllegalMonitorStateException a = new IllegalMonitorStateException("lock 'a' is not held");
        IllegalMonitorStateException c = new IllegalMonitorStateException("lock 'c' is not held");
        failures.add("a", a);
        failures.add("c", c);
        RuntimeException combined = failures.toException(3);
        assertThat(combined).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessage("MultiLock[a, b, c]: unlock failed for 2 of 3 members: 'a': lock 'a' is not held; "
                        + "'c': lock 'c' is not held");
        assertThat(combined.getSuppressed()).containsExactly(a, c);
    }

    @Test
    void aRedisFailureGivesALockExceptionCausedByIt() {
        Failures failures = new Failures("MultiLock[a, b]", "unlock");
        IllegalMonitorStateException a = new IllegalMonitorStateException("lock 'a' is not held");
        LockException b = new LockException("b", "lock 'b': unlock failed: Redis unreachable", null);
        failures.add("a", a);
        failures.add("b", b);
        RuntimeException combined = failures.toException(2);
        assertThat(combined).isInstanceOf(LockException.class).hasCause(b).hasMessageContaining("'a'")
                .hasMessageContaining("'b'");
        assertThat(((LockException) combined).lockName()).isEqualTo("MultiLock[a, b]");
        assertThat(combined.getSuppressed()).containsExactly(a, b);
    }

    @Test
    void theShortestTimeToLiveOfTheHeldMembers() {
        long none = DistributedLock.TTL_NOT_LOCKED;
        long forever = DistributedLock.TTL_NO_EXPIRY;
        assertThat(MultiLockQueries.shorter(none, none)).isEqualTo(none);
        assertThat(MultiLockQueries.shorter(none, forever)).isEqualTo(forever);
        assertThat(MultiLockQueries.shorter(forever, 500)).isEqualTo(500);
        assertThat(MultiLockQueries.shorter(800, none)).isEqualTo(800);
        assertThat(MultiLockQueries.shorter(800, 500)).isEqualTo(500);
    }
}
