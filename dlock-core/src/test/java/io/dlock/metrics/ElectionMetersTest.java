package io.dlock.metrics;

import io.dlock.LeaderTerm.Cause;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The election meters' own bookkeeping, fed events directly: an epoch not above the last one won counts as a
 * regression (what no real election may produce: ElectionMetricsIT checks it stays 0 there), the gauge counts the
 * elections leading now and never goes below 0 for a term won before the metrics listened.
 */
class ElectionMetersTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerLockEvents events = new MicrometerLockEvents("dlock", null, null);

    private double count(String meter, String... tags) {
        return registry.get(meter).tags(tags).counter().count();
    }

    @Test
    void anEpochNotAboveTheLastWonCountsAsARegressionPerName() {
        events.bindTo(registry);
        events.leaderElected("a", 5);
        events.leaderRevoked("a", 5, Cause.RESIGNED, 1_000_000);
        events.leaderElected("a", 5); // the same epoch again
        events.leaderRevoked("a", 5, Cause.LEASE_LOST, 2_000_000);
        events.leaderElected("a", 3); // below
        events.leaderRevoked("a", 3, Cause.CLOSED, 3_000_000);
        events.leaderElected("a", 6);
        events.leaderElected("b", 1); // another name starts its own record

        assertThat(count("dlock.leader.epoch.regressions", "name", "a")).isEqualTo(2);
        assertThat(count("dlock.leader.epoch.regressions", "name", "b")).isZero();
        assertThat(count("dlock.leader.elections", "name", "a")).isEqualTo(4);
        assertThat(count("dlock.leader.revocations", "name", "a", "cause", "resigned")).isEqualTo(1);
        assertThat(count("dlock.leader.revocations", "name", "a", "cause", "lease_lost")).isEqualTo(1);
        assertThat(count("dlock.leader.revocations", "name", "a", "cause", "closed")).isEqualTo(1);
        assertThat(count("dlock.leader.revocations", "name", "a", "cause", "paused")).isZero();
        assertThat(registry.get("dlock.leader.term").tags("name", "a").timer().count()).isEqualTo(3);
        assertThat(registry.get("dlock.leader.term").tags("name", "a").timer()
                .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(6.0);
        assertThat(registry.get("dlock.leader").tags("name", "a").gauge().value()).isEqualTo(1);
        assertThat(registry.get("dlock.leader").tags("name", "b").gauge().value()).isEqualTo(1);
    }

    @Test
    void aRevocationOfATermWonBeforeTheMetricsListenedLeavesTheGaugeAtZero() {
        events.bindTo(registry);
        events.leaderRenewed("a", true);
        events.leaderRenewed("a", false);
        events.leaderRevoked("a", 9, Cause.CONNECTION_LOST, 1);
        assertThat(registry.get("dlock.leader").tags("name", "a").gauge().value()).isZero();
        assertThat(count("dlock.leader.renewals", "name", "a", "result", "ok")).isEqualTo(1);
        assertThat(count("dlock.leader.renewals", "name", "a", "result", "failed")).isEqualTo(1);
        events.leaderElected("a", 10);
        assertThat(registry.get("dlock.leader").tags("name", "a").gauge().value()).isEqualTo(1);
    }

    @Test
    void aRegistryBoundLaterHasTheKnownElectionsAndRemovingTheMetersLeavesNone() {
        events.leaderElected("a", 1);
        events.bindTo(registry);
        assertThat(registry.get("dlock.leader").tags("name", "a").gauge().value()).isEqualTo(1);
        assertThat(count("dlock.leader.epoch.regressions", "name", "a")).isZero();
        events.removeMeters();
        assertThat(registry.find("dlock.leader").meters()).isEmpty();
        assertThat(registry.getMeters()).isEmpty();
    }
}
