package io.dlock.internal.semaphore;

import io.dlock.SemaphoreInfo;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How the inspection's reply becomes a {@link SemaphoreInfo}: leases by the server's clock of the same reply. */
class SemaphoreInspectorTest {
    private static final String A = "0123456789abcdef0123456789abcdef";
    private static final String B = "fedcba9876543210fedcba9876543210";
    private static final String C = "00000000000000000000000000000001";

    @Test
    void leasesAreCountedFromTheServerTimeOfTheReplyAndExpiredPermitsAreAvailable() {
        long now = 1_700_000_000_000L;
        SemaphoreInfo info = SemaphoreInspector.parse("sem", List.of(1L, -1L, now, List.of(
                A, Long.toString(now), // ends now: reclaimed by the next operation
                B, Long.toString(now + 2500),
                C, "922337203685477")));
        assertThat(info.availablePermits()).as("the count plus the expired permit").isEqualTo(2);
        assertThat(info.expiredPermits()).isEqualTo(1);
        assertThat(info.permits()).containsExactly(new SemaphoreInfo.PermitLease(B, 2500),
                new SemaphoreInfo.PermitLease(C, -1));
        assertThat(info.totalPermits()).isEqualTo(4);
        assertThat(info.hasLeasedPermits()).isTrue();
        assertThat(info.isSet()).isTrue();
        assertThat(info.ttlMillis()).isEqualTo(-1);
    }

    @Test
    void aMissingCountIsNotSet() {
        SemaphoreInfo info = SemaphoreInspector.parse("sem", List.of(0L, -2L, 5L, List.of()));
        assertThat(info.isSet()).isFalse();
        assertThat(info.hasLeasedPermits()).isFalse();
        assertThat(info.availablePermits()).isZero();
        assertThat(info.totalPermits()).isZero();
    }
}
