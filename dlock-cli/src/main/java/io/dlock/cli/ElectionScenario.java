package io.dlock.cli;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.redisprocess.Await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Leader election: three candidates in three clients; each leader writes to a fenced register (outside the
 * candidates: it accepts a write only with an epoch at least the highest it saw) through {@code requireValid()} every
 * 2 ms. The leader resigns twice, then loses its lock to a {@code forceUnlock}; every time another takes over with a
 * higher epoch. Checks that can fail: one valid term at a time while Redis keeps the key (sampled every ms), epochs
 * that only go up, no write rejected by the register before the force-unlock, one {@code revoked} per
 * {@code elected}. A force-unlock takes the key away under the leader, which believes it leads until its next
 * renewal: there the other's term may overlap its own, and the register's fence is what refuses its late writes (both
 * are told, not checked).
 */
final class ElectionScenario extends DemoScenario {
    private static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(3000)).renewDeadline(Duration.ofMillis(2000)).retryPeriod(Duration.ofMillis(300))
            .stopTimeout(Duration.ofSeconds(1)).build();
    private static final Duration WITHIN = Duration.ofSeconds(10);

    ElectionScenario() {
        super("Leader election: one leader at a time, epochs that only go up", "election");
    }

    /** The register outside the candidates: accepts a write with an epoch at least the highest seen. */
    private static final class FencedRegister {
        private long highest = Long.MIN_VALUE;
        private int accepted;
        private int rejected;
        private int rejectedAfterForce;

        synchronized void write(long epoch, boolean forced) {
            if (epoch >= highest) {
                highest = epoch;
                accepted++;
            } else if (forced) {
                rejectedAfterForce++;
            } else {
                rejected++;
            }
        }
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws Exception {
        FencedRegister register = new FencedRegister();
        AtomicBoolean forced = new AtomicBoolean();
        AtomicInteger elected = new AtomicInteger();
        AtomicInteger revoked = new AtomicInteger();
        List<LeaderElection> candidates = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockClient client = context.newClient(null);
            LeaderElection election = client.getLeaderElection(name, FAST);
            election.addListener(new LeaderListener() {
                @Override
                public void elected(LeaderTerm term) {
                    elected.incrementAndGet();
                }

                @Override
                public void revoked(LeaderTerm term, LeaderTerm.Cause cause) {
                    revoked.incrementAndGet();
                }
            });
            election.runWhileLeader(term -> {
                while (true) {
                    try {
                        register.write(term.requireValid(), forced.get());
                    } catch (LockLostException e) {
                        return; // the term ended: stop writing
                    }
                    Thread.sleep(2);
                }
            });
            candidates.add(election);
        }
        AtomicLong samples = new AtomicLong();
        AtomicLong overlaps = new AtomicLong();
        AtomicLong forcedOverlaps = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                samples.incrementAndGet();
                // a hand-over between two reads of one pass could look like two leaders: a real overlap lasts
                // longer than two passes (microseconds), so it is counted when the next pass sees it too
                boolean force = forced.get();
                if (leaders(candidates) > 1 && leaders(candidates) > 1) {
                    (force ? forcedOverlaps : overlaps).incrementAndGet();
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "dlock-demo-election-sampler");
        sampler.setDaemon(true);
        sampler.start();
        List<Long> epochs = new ArrayList<>();
        try {
            candidates.forEach(LeaderElection::start);
            for (int round = 0; round < 4; round++) {
                LeaderElection leader = awaitLeader(candidates);
                if (leader == null) {
                    context.say("no leader within " + DurationText.format(WITHIN));
                    return false;
                }
                LeaderTerm term = leader.currentTerm().orElse(null);
                if (term == null) { // it lost the term again just now: wait for the next leader
                    round--;
                    continue;
                }
                long epoch = term.epoch();
                epochs.add(epoch);
                int who = candidates.indexOf(leader) + 1;
                if (round < 2) {
                    context.say("candidate " + who + " leads, epoch " + epoch + "; it resigns");
                    leader.resign();
                } else if (round == 2) {
                    context.say("candidate " + who + " leads, epoch " + epoch + "; its lock is force-unlocked");
                    forced.set(true);
                    context.newClient(null).getLock(name).forceUnlock();
                    // its term ends (the same candidate may win the next one at once, so its term is watched, not
                    // whether it leads)
                    Await.until(WITHIN, () -> !term.isValid(), () -> "the leader's term ends");
                    // one renewal later the old leader knows; then one leader again
                    Await.until(WITHIN, () -> leaders(candidates) <= 1, () -> "one leader");
                    forced.set(false);
                } else {
                    context.say("candidate " + who + " leads, epoch " + epoch + "; all close");
                }
            }
        } finally {
            candidates.forEach(LeaderElection::close);
            sampler.interrupt();
            sampler.join(1000);
        }
        boolean increasing = true;
        for (int i = 1; i < epochs.size(); i++) {
            increasing &= epochs.get(i) > epochs.get(i - 1);
        }
        context.check("one leader at a time while Redis kept the key (overlaps: " + overlaps.get() + " of "
                + samples.get() + " samples)", overlaps.get() == 0);
        context.check("each new leader's epoch above the last (" + epochs.size() + " terms)", increasing);
        int accepted;
        int rejected;
        int rejectedAfterForce;
        synchronized (register) {
            accepted = register.accepted;
            rejected = register.rejected;
            rejectedAfterForce = register.rejectedAfterForce;
        }
        context.say("force-unlock: the old leader led on until its next renewal (overlap: " + forcedOverlaps.get()
                + " samples); the fence refused " + rejectedAfterForce + " late writes");
        context.check("fenced register: no write refused while Redis kept the key (" + accepted + " accepted, "
                + rejected + " refused)", accepted > 0 && rejected == 0);
        context.check("one revoked per elected (" + elected.get() + " elected, " + revoked.get() + " revoked)",
                elected.get() == revoked.get() && elected.get() >= epochs.size());
        return true;
    }

    private static long leaders(List<LeaderElection> candidates) {
        return candidates.stream().filter(LeaderElection::isLeader).count();
    }

    /** @return the one candidate that leads, once one does (within {@link #WITHIN}); null if none did */
    private static LeaderElection awaitLeader(List<LeaderElection> candidates) {
        try {
            Await.until(WITHIN, () -> candidates.stream().anyMatch(LeaderElection::isLeader), () -> "a leader");
        } catch (IllegalStateException e) {
            return null;
        }
        return candidates.stream().filter(LeaderElection::isLeader).findFirst().orElse(null);
    }
}
