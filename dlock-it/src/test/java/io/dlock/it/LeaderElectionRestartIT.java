package io.dlock.it;

import io.dlock.LeaderTerm;
import io.dlock.LeaderTerm.Cause;
import io.dlock.it.support.ElectionCandidates;
import io.dlock.it.support.ElectionCandidates.Candidate;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.FencedRegister;
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

import static io.dlock.it.support.ElectionCandidates.FAST;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election across a Redis restart without persistence (issue 44, item 7): the lock, its token counter and
 * everything else are gone, yet the old leader steps down (its renewal finds the hold gone, or its renew deadline
 * passes), a new leader is elected, and its epoch is higher than every earlier one (the token script bounds tokens
 * below by the server's clock, protocol §5.1). Three candidates write their epoch through {@code requireValid()} to a
 * {@link FencedRegister} every 2 ms throughout.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class LeaderElectionRestartIT {
    private RedisServer server;
    private String name;
    private FencedRegister register;
    private ElectionCandidates candidates;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        this.server = server;
        this.name = "it:LeaderElectionRestartIT:" + info.getTestMethod().orElseThrow().getName();
        this.register = new FencedRegister(name);
        this.candidates = new ElectionCandidates(name, FAST, register);
    }

    @AfterEach
    void tearDown() {
        candidates.close();
        if (!server.isRunning()) {
            server.restart();
        }
    }

    /**
     * A quick restart (SIGTERM, start again: a few hundred ms): the key is lost while the leader still counts its term
     * valid, so another candidate may win before the old leader's next renewal finds its hold gone. That overlap (at
     * most a retry period after the restart, or the renew deadline) is counted, not refused; the fencing must refuse
     * the old leader's writes once the new one wrote, and every new epoch must be above every earlier one.
     */
    @Test
    void aRestartWithoutPersistenceElectsANewLeaderWithAHigherEpoch() throws Exception {
        for (int i = 0; i < 3; i++) {
            candidates.start(server.uri());
        }
        List<Long> newLeaderMs = new ArrayList<>();
        List<Long> oldStepDownMs = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            candidates.awaitLeaderAbove(candidates.highestEpoch() - 1, Duration.ofSeconds(10));
            long writes = register.figures().accepted();
            Await.until(Duration.ofSeconds(5), () -> register.figures().accepted() > writes + 10,
                    "the leader writes");
            LeaderTerm old = leadingTerm();
            long before = candidates.highestEpoch();
            long restartedAt = System.nanoTime();
            server.restart();
            long upAt = System.nanoTime();
            Cause cause = old.revocationAsync().get(10, SECONDS);
            oldStepDownMs.add((System.nanoTime() - restartedAt) / 1_000_000);
            assertThat(cause).as("the old leader's cause").isIn(Cause.LEASE_LOST, Cause.CONNECTION_LOST);
            Candidate leader = candidates.awaitLeaderAbove(before, Duration.ofSeconds(10));
            LeaderTerm term = leader.election().currentTerm().orElseThrow();
            newLeaderMs.add((candidates.electedAt(term.epoch()) - restartedAt) / 1_000_000);
            assertThat(term.epoch()).as("the new epoch, above every earlier one (%d)", before).isGreaterThan(before);
            long highest = register.highest();
            Await.until(Duration.ofSeconds(5), () -> register.highest() >= term.epoch(),
                    () -> "the new leader's writes are accepted: highest " + highest + ", epoch " + term.epoch());
            System.out.printf("restart %d: Redis down for %d ms; old leader (epoch %d) revoked %s after %d ms; "
                            + "new leader epoch %d after %d ms%n", round, (upAt - restartedAt) / 1_000_000,
                    old.epoch(), cause, oldStepDownMs.get(round), term.epoch(), newLeaderMs.get(round));
        }
        candidates.close();
        FencedRegister.Figures figures = register.figures();
        System.out.printf("leader election across 4 Redis restarts without persistence: new leader after %s ms, "
                + "old leader revoked after %s ms; %s%n", newLeaderMs, oldStepDownMs, figures);
        register.assertInvariants(false, true);
        assertThat(figures.epochs()).as("accepted epochs").isSorted();
        assertThat(newLeaderMs).as("ms to a new leader: restart + lease (1.5 s) + retry (0.2 s), generously")
                .allMatch(ms -> ms < 6_000);
    }

    /**
     * Redis down longer than the lease, then back empty: the leader must have stepped down by its renew deadline
     * (counted from its last confirmed renewal's send, so before its lease could have ended), so even with the key
     * lost no two terms overlap and no write is refused: the strict invariants hold.
     */
    @Test
    void aLeaderStepsDownByItsDeadlineWhileRedisIsDownAndNoTermsOverlap() throws Exception {
        for (int i = 0; i < 3; i++) {
            candidates.start(server.uri());
        }
        candidates.awaitLeaderAbove(0, Duration.ofSeconds(10));
        Await.until(Duration.ofSeconds(5), () -> register.figures().accepted() > 10, "the leader writes");
        LeaderTerm old = leadingTerm();
        long before = candidates.highestEpoch();
        long killedAt = System.nanoTime();
        server.kill();
        Cause cause = old.revocationAsync().get(10, SECONDS);
        long stepDownMs = (System.nanoTime() - killedAt) / 1_000_000;
        assertThat(cause).isEqualTo(Cause.CONNECTION_LOST);
        assertThat(stepDownMs).as("ms from the kill to the step-down: within the renew deadline (1,000 ms) of the "
                + "last confirmed renewal, before the lease (1,500 ms)").isLessThan(1_500);
        Thread.sleep(1_600 - Math.min(1_600, stepDownMs)); // down past the lease: what Redis would have kept is gone
        server.restart();
        Candidate leader = candidates.awaitLeaderAbove(before, Duration.ofSeconds(10));
        long newLeaderMs = (candidates.electedAt(leader.election().currentTerm().orElseThrow().epoch()) - killedAt)
                / 1_000_000;
        Await.until(Duration.ofSeconds(5), () -> register.highest() > before, "the new leader writes");
        candidates.close();
        System.out.printf("Redis killed under the leader, restarted after the lease: old leader revoked %s after "
                + "%d ms, new leader after %d ms; %s%n", cause, stepDownMs, newLeaderMs, register.figures());
        register.assertInvariants(true, true);
    }

    private LeaderTerm leadingTerm() {
        return candidates.all().stream().filter(Candidate::leads).findFirst().orElseThrow()
                .election().currentTerm().orElseThrow();
    }
}
