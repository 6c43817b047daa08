package io.dlock.it;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.metrics.LockMetrics;
import io.dlock.redisprocess.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockMetrics}' election meters over real elections: two candidates of one name in one client (each its own
 * owner) hand the term over by resign, lose it to a forceUnlock, and close; every count is exact, the gauge follows the
 * leader, the term timer has one record per revoked term, and the regression counter stays 0 while the epochs grow.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class ElectionMetricsIT {
    private static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(1500)).renewDeadline(Duration.ofMillis(1000)).retryPeriod(Duration.ofMillis(200))
            .stopTimeout(Duration.ofSeconds(1)).build();
    private static final Duration SETTLE = Duration.ofSeconds(5);

    private String name;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:ElectionMetricsIT:" + info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private double count(String meter, String... tags) {
        return registry.get(meter).tags(tags).counter().count();
    }

    private double revocations(String cause) {
        return count("dlock.leader.revocations", "name", name, "cause", cause);
    }

    private double leaderGauge() {
        return registry.get("dlock.leader").tags("name", name).gauge().value();
    }

    private long terms() {
        return registry.get("dlock.leader.term").tags("name", name).timer().count();
    }

    private LeaderElection election(LockClient client) {
        LeaderElection election = client.getLeaderElection(name, FAST);
        toClose.add(election);
        return election;
    }

    @Test
    void electionsRevocationsByCauseRenewalsTermsAndTheGaugeFollowAHandOverALossAndClose(LockClient client)
            throws Exception {
        LockMetrics metrics = LockMetrics.of(client);
        toClose.add(0, metrics);
        metrics.bindTo(registry);
        LeaderElection a = election(client);
        LeaderElection b = election(client);

        a.start();
        LeaderTerm first = a.awaitLeadership(SETTLE).orElseThrow();
        assertThat(count("dlock.leader.elections", "name", name)).isEqualTo(1);
        assertThat(leaderGauge()).isEqualTo(1);
        Await.until(SETTLE, () -> count("dlock.leader.renewals", "name", name, "result", "ok") >= 2,
                () -> "renewals: " + count("dlock.leader.renewals", "name", name, "result", "ok"));
        b.start();
        a.resign(); // returns once a's hold is released: b wins next
        LeaderTerm second = b.awaitLeadership(SETTLE).orElseThrow();
        assertThat(second.epoch()).isGreaterThan(first.epoch());
        assertThat(revocations("resigned")).isEqualTo(1);
        assertThat(count("dlock.leader.elections", "name", name)).isEqualTo(2);
        assertThat(leaderGauge()).isEqualTo(1);
        assertThat(terms()).isEqualTo(1);
        assertThat(registry.get("dlock.leader.term").tags("name", name).timer().totalTime(MILLISECONDS))
                .isGreaterThanOrEqualTo(400); // a led through two renewals, one retry period apart

        assertThat(client.getLock(name).forceUnlock()).isTrue(); // Redis no longer has b's hold
        assertThat(second.revocationAsync().get(5, SECONDS)).isEqualTo(LeaderTerm.Cause.LEASE_LOST);
        // either wins the next term (b competes again at once; a waits for the unlock message)
        Await.until(SETTLE, () -> a.isLeader() || b.isLeader(), () -> "a new leader");
        LeaderTerm third = (a.isLeader() ? a : b).currentTerm().orElseThrow();
        assertThat(third.epoch()).isGreaterThan(second.epoch());
        assertThat(revocations("lease_lost")).isEqualTo(1);
        assertThat(count("dlock.leader.elections", "name", name)).isEqualTo(3);

        a.close();
        b.close();
        assertThat(revocations("closed")).isEqualTo(1);
        assertThat(leaderGauge()).isZero();
        assertThat(terms()).isEqualTo(3);
        for (String cause : new String[] {"connection_lost", "paused", "task_ended", "task_failed"}) {
            assertThat(revocations(cause)).as(cause).isZero();
        }
        assertThat(count("dlock.leader.renewals", "name", name, "result", "failed")).isZero();
        assertThat(count("dlock.leader.epoch.regressions", "name", name)).isZero();
        assertThat(registry.getMeters()).filteredOn(m -> m.getId().getName().startsWith("dlock.leader"))
                .allSatisfy(m -> assertThat(m.getId().getTag("name")).isEqualTo(name));
    }

    @Test
    void aClientWithoutMetricsOrAfterCloseRecordsNothing(LockClient client) throws Exception {
        LockMetrics metrics = LockMetrics.of(client);
        metrics.bindTo(registry);
        metrics.close();
        LeaderElection a = election(client);
        a.start();
        a.awaitLeadership(SETTLE).orElseThrow();
        a.close();
        assertThat(registry.find("dlock.leader").meters()).isEmpty();
    }
}
