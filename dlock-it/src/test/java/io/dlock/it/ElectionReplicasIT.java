package io.dlock.it;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.SentinelTopology;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code syncReplicas}, a leader election's wins and renewals count only once {@code WAIT} confirms them on the
 * replicas (issue 44, item 3; docs/protocol.md §14.2): a leader whose renewals a replica no longer confirms steps
 * down at its renew deadline (cause {@code CONNECTION_LOST}), although the master keeps extending its key; once the
 * replica answers again, the candidate wins again, with a higher epoch.
 */
@ExtendWith(RedisExtension.class)
@Topology(Topology.Kind.SENTINEL)
@Timeout(value = 120, unit = SECONDS)
class ElectionReplicasIT {
    private static final LeaderElectionSettings SETTINGS = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(3000)).renewDeadline(Duration.ofMillis(2000)).retryPeriod(Duration.ofMillis(300))
            .stopTimeout(Duration.ofSeconds(1)).build();

    @Test
    void aRenewalCountsOnlyOnceTheReplicasConfirmIt(SentinelTopology redis) throws Exception {
        assertThat(redis.replicas()).hasSize(2);
        List<String> heard = new CopyOnWriteArrayList<>();
        try (LockClient client = LockClient.create(LockClientConfig.builder().redisUri(redis.uri())
                .commandTimeout(Duration.ofMillis(900)).syncReplicas(2, Duration.ofMillis(200)).build())) {
            LeaderElection election = client.getLeaderElection("it:ElectionReplicasIT", SETTINGS);
            election.addListener(new LeaderListener() {
                @Override
                public void revoked(LeaderTerm term, LeaderTerm.Cause cause) {
                    heard.add(cause.name());
                }
            });
            election.start();
            long first = election.awaitLeadership(Duration.ofSeconds(10)).orElseThrow().epoch();
            Await.during(Duration.ofMillis(900), election::isLeader, "renewals confirmed by both replicas");

            RedisServer replica = redis.replicas().get(0);
            long pausedAt = System.nanoTime();
            replica.pause();
            try {
                Await.until(Duration.ofSeconds(6), () -> !election.isLeader(),
                        "the leader steps down once no renewal is confirmed for the renew deadline");
                long steppedDownMs = Await.millisSince(pausedAt);
                assertThat(steppedDownMs).as("ms until the leader stepped down")
                        .isGreaterThanOrEqualTo(SETTINGS.renewDeadline().toMillis() - SETTINGS.retryPeriod().toMillis())
                        .isLessThan(SETTINGS.lease().toMillis() + 1000);
                Await.until(Duration.ofSeconds(3), () -> heard.contains("CONNECTION_LOST"), () -> "heard " + heard);
                Await.during(Duration.ofMillis(600), () -> !election.isLeader(),
                        "no win is confirmed while a replica is paused");
            } finally {
                replica.resume();
            }
            long next = election.awaitLeadership(Duration.ofSeconds(15)).orElseThrow().epoch();
            assertThat(next).isGreaterThan(first);
        } finally {
            redis.awaitHealthy();
        }
    }
}
