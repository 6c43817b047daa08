package io.dlock.it;

import io.dlock.LeaderTerm;
import io.dlock.LeaderTerm.Cause;
import io.dlock.it.support.ElectionCandidates;
import io.dlock.it.support.ElectionCandidates.Candidate;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.SentinelTopology;
import io.dlock.testkit.FencedRegister;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static io.dlock.it.support.ElectionCandidates.FAST;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election through Redis Sentinel (one master, two replicas, three Sentinels) across a failover (issue 44,
 * item 7): three candidates connected through the Sentinels write their epoch through {@code requireValid()} to a
 * {@link FencedRegister} every 2 ms; the master is killed (SIGKILL) or handed over ({@code SENTINEL FAILOVER}). After
 * the failover there is a leader again, every epoch won after the fault is above every epoch won before it, no write
 * passes its term's guard after the term's revocation, and one revoked answers each elected. Overlaps and writes the
 * fence refused are counted and printed, not refused: a failover may lose a renewal or keep the old master accepting
 * writes for seconds (see {@code SentinelFailoverIT}), and that is what the fencing is for.
 */
@ExtendWith(RedisExtension.class)
@Topology(Topology.Kind.SENTINEL)
@Timeout(value = 120, unit = SECONDS)
class LeaderElectionSentinelIT {
    private ElectionCandidates candidates;

    @AfterEach
    void tearDown() {
        if (candidates != null) {
            candidates.close();
        }
    }

    /**
     * The master crashes: the leader's renewals fail, so it steps down by its renew deadline (1 s), before its lease
     * (1.5 s) could end on the replicas, and long before the Sentinels promote one (down-after 2 s): no two terms
     * overlap here, and no write is refused.
     */
    @Test
    void theMasterCrashesAndANewLeaderIsElectedWithAHigherEpoch(SentinelTopology redis, TestInfo info)
            throws Exception {
        FencedRegister register = start(redis, info);
        candidates.awaitLeaderAbove(0, Duration.ofSeconds(10));
        Await.until(Duration.ofSeconds(5), () -> register.figures().accepted() > 20, "the leader writes");
        LeaderTerm old = leadingTerm();
        long before = candidates.highestEpoch();
        long killedAt = System.nanoTime();
        redis.killMaster();
        long promotedMs = (System.nanoTime() - killedAt) / 1_000_000;
        Cause cause = old.revocationAsync().get(10, SECONDS);
        Candidate leader = candidates.awaitLeaderAbove(before, Duration.ofSeconds(20));
        long epoch = leader.election().currentTerm().orElseThrow().epoch();
        long newLeaderMs = (candidates.electedAt(epoch) - killedAt) / 1_000_000;
        Await.until(Duration.ofSeconds(5), () -> register.highest() >= epoch, "the new leader's writes are accepted");
        candidates.close();
        FencedRegister.Figures figures = register.figures();
        System.out.printf("sentinel, master killed: promoted after %d ms; old leader (epoch %d) revoked %s; new "
                + "leader (epoch %d) after %d ms; %s%n", promotedMs, old.epoch(), cause, epoch, newLeaderMs, figures);
        assertThat(cause).as("the old leader's cause").isIn(Cause.CONNECTION_LOST, Cause.LEASE_LOST);
        assertEpochsRoseAcross(before);
        register.assertInvariants(true, true);
    }

    /**
     * A planned failover ({@code SENTINEL FAILOVER}): the replicas have the leader's key, so the leader may keep its
     * term across it; the old master keeps answering as a master until the Sentinels demote it, so overlaps may
     * happen and are counted.
     */
    @Test
    void aSentinelFailoverKeepsEpochsRisingAndALeader(SentinelTopology redis, TestInfo info) throws Exception {
        FencedRegister register = start(redis, info);
        candidates.awaitLeaderAbove(0, Duration.ofSeconds(10));
        Await.until(Duration.ofSeconds(5), () -> register.figures().accepted() > 20, "the leader writes");
        long before = candidates.highestEpoch();
        long writesBefore = register.figures().accepted();
        long startedAt = System.nanoTime();
        redis.failover();
        long switchedMs = (System.nanoTime() - startedAt) / 1_000_000;
        redis.awaitHealthy();
        long healthyMs = (System.nanoTime() - startedAt) / 1_000_000;
        Candidate leader = candidates.awaitLeaderAbove(before - 1, Duration.ofSeconds(20));
        long epoch = leader.election().currentTerm().orElseThrow().epoch();
        Await.until(Duration.ofSeconds(5), () -> register.figures().accepted() > writesBefore + 20,
                "a leader writes after the failover");
        candidates.close();
        List<LeaderTerm> terms = candidates.terms();
        FencedRegister.Figures figures = register.figures();
        System.out.printf("sentinel, SENTINEL FAILOVER: switched after %d ms, healthy after %d ms; %d terms (%s), "
                        + "leader after it epoch %d; %s%n", switchedMs, healthyMs, terms.size(),
                terms.stream().map(t -> t.revocationAsync().getNow(null)).toList(), epoch, figures);
        assertEpochsRoseAcross(before);
        register.assertInvariants(false, true);
        assertThat(figures.epochs()).as("accepted epochs").isSorted();
    }

    private FencedRegister start(SentinelTopology redis, TestInfo info) {
        String name = "it:LeaderElectionSentinelIT:" + info.getTestMethod().orElseThrow().getName();
        FencedRegister register = new FencedRegister(name);
        candidates = new ElectionCandidates(name, FAST, register);
        for (int i = 0; i < 3; i++) {
            candidates.start(redis.uri());
        }
        return register;
    }

    /** Every term won after the first term above {@code before} has an epoch above every term won before it. */
    private void assertEpochsRoseAcross(long before) {
        List<Long> epochs = candidates.terms().stream().map(LeaderTerm::epoch).toList();
        int first = epochs.indexOf(epochs.stream().filter(e -> e > before).findFirst().orElseThrow());
        long highestBefore = epochs.subList(0, first).stream().mapToLong(Long::longValue).max().orElse(0);
        assertThat(epochs.subList(first, epochs.size())).as("epochs won after the fault, in order: %s", epochs)
                .allMatch(e -> e > highestBefore);
    }

    private LeaderTerm leadingTerm() {
        return candidates.all().stream().filter(Candidate::leads).findFirst().orElseThrow()
                .election().currentTerm().orElseThrow();
    }
}
