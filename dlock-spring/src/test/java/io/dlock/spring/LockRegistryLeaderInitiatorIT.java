package io.dlock.spring;

import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.FencedRegister;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's own {@link LockRegistryLeaderInitiator} over a {@link DlockLockRegistry} (issue 44, item 7):
 * two instances on two clients; the leader's lock is taken away from under it ({@code forceUnlock}, then a
 * {@code DEL} of the key), and the leader must be revoked (its next heart-beat's re-entry finds the hold gone) and
 * the other instance granted, round after round. By default the revoked instance could not be granted again: its
 * selector thread keeps the registry lock's outer hold (Spring Integration does not unlock after a failed heart-beat),
 * and a {@code DlockLockRegistry} re-entry never succeeds on a hold Redis no longer has (issue 20;
 * {@code DlockLockRegistryHoldsIT}), where {@code RedisLockRegistry}'s re-entry takes the free key again. So the first
 * test replaces it by a fresh instance, as a restarted application; the second turns on
 * {@link DlockLockRegistry#setForgetLostHolds}, with which the same instances run on. Each granted candidate writes
 * to a {@link FencedRegister} every 2 ms with a token of the grant (Spring Integration's initiator has no epoch: the
 * test counts grants, in order, as a stand-in), guarded by {@link Context#isLeader()}. The overlaps (until the old
 * leader's heart-beat) and the writes the fence refused are counted and printed.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class LockRegistryLeaderInitiatorIT {
    private static final String ROLE = "it:LockRegistryLeaderInitiatorIT";
    private static final long HEART_BEAT_MS = 100;

    private final FencedRegister register = new FencedRegister(ROLE);
    private final AtomicLong grants = new AtomicLong();
    private final List<Instance> instances = new ArrayList<>();

    @AfterEach
    void stop() {
        instances.forEach(instance -> instance.initiator.stop());
        instances.forEach(instance -> instance.selector.shutdownNow());
    }

    @Test
    void theLeaderIsRevokedWhenItsLockIsLostAndTheOtherIsGranted(RedisServer redis, LockClient a, LockClient b)
            throws Exception {
        Instance[] pair = {new Instance("a0", a), new Instance("b0", b)};
        List<Long> revokedMs = new ArrayList<>();
        List<Long> grantedMs = new ArrayList<>();
        for (int round = 0; round < 6; round++) {
            Await.until(Duration.ofSeconds(10), () -> pair[0].leads() ^ pair[1].leads(), "one leader");
            int leading = pair[0].leads() ? 0 : 1;
            Instance leader = pair[leading];
            Instance other = pair[1 - leading];
            long writes = register.figures().accepted();
            Await.until(Duration.ofSeconds(5), () -> register.figures().accepted() > writes + 10, "the leader writes");
            Grant term = leader.current;
            assertThat(term).isNotNull();
            long lostAt = System.nanoTime();
            if (round % 2 == 0) {
                assertThat(b.getLock(ROLE).forceUnlock()).as("forceUnlock of the leader's lock").isTrue();
            } else {
                assertThat(redis.command(Duration.ofSeconds(2), "DEL", ROLE)).as("DEL of the leader's key")
                        .isEqualTo("1");
            }
            term.revoked.get(5, SECONDS);
            revokedMs.add((System.nanoTime() - lostAt) / 1_000_000);
            Await.until(Duration.ofSeconds(5), other::leads, () -> "round: the other instance is granted, after "
                    + "the leader's lock was lost; leader " + leader + ", other " + other);
            grantedMs.add((other.current.grantedAt - lostAt) / 1_000_000);
            leader.initiator.stop();
            pair[leading] = new Instance((leading == 0 ? "a" : "b") + (round + 1), leading == 0 ? a : b);
        }
        stopAll();
        FencedRegister.Figures figures = register.figures();
        System.out.printf("Spring Integration's LockRegistryLeaderInitiator over DlockLockRegistry, heart-beat %d ms, "
                + "lock lost 6 times: leader revoked after %s ms, other granted after %s ms; %s%n", HEART_BEAT_MS,
                revokedMs, grantedMs, figures);
        register.assertInvariants(false, true);
        assertThat(revokedMs).as("ms from the loss to onRevoked: a heart-beat and a round trip, generously")
                .allMatch(ms -> ms < 2_000);
    }

    /**
     * With {@link DlockLockRegistry#setForgetLostHolds} on, the same two instances run on: a revoked instance's failed
     * heart-beat let go of its stale outer hold, so its selector's next attempt is a fresh acquisition and it is
     * granted again in a later round (nobody is replaced). Without it, {@code theLeaderIsRevoked…} shows the default:
     * the revoked instance would stay out.
     */
    @Test
    void withForgetLostHoldsARevokedInstanceRunsForLeadershipAgain(RedisServer redis, LockClient a, LockClient b)
            throws Exception {
        Instance[] pair = {new Instance("a", a, true), new Instance("b", b, true)};
        int[] grantsOf = new int[2];
        for (int round = 0; round < 6; round++) {
            Await.until(Duration.ofSeconds(10), () -> pair[0].leads() ^ pair[1].leads(), "one leader");
            int leading = pair[0].leads() ? 0 : 1;
            grantsOf[leading]++;
            Instance leader = pair[leading];
            Instance other = pair[1 - leading];
            long writes = register.figures().accepted();
            Await.until(Duration.ofSeconds(5), () -> register.figures().accepted() > writes + 10, "the leader writes");
            Grant term = leader.current;
            if (round % 2 == 0) {
                assertThat(b.getLock(ROLE).forceUnlock()).as("forceUnlock of the leader's lock").isTrue();
            } else {
                assertThat(redis.command(Duration.ofSeconds(2), "DEL", ROLE)).isEqualTo("1");
            }
            term.revoked.get(5, SECONDS);
            // the other instance, or the revoked one running again: whoever takes the free lock first
            int r = round;
            Await.until(Duration.ofSeconds(5), () -> other.leads() || leader.current != term && leader.leads(),
                    () -> "round " + r + ": someone is granted after the loss; leader " + leader + ", other " + other);
        }
        Await.until(Duration.ofSeconds(10), () -> pair[0].leads() ^ pair[1].leads(), "one leader at the end");
        grantsOf[pair[0].leads() ? 0 : 1]++;
        stopAll();
        System.out.printf("forgetLostHolds: grants per instance over 7 terms %s; %s%n",
                java.util.Arrays.toString(grantsOf), register.figures());
        assertThat(grantsOf[0] + grantsOf[1]).isEqualTo(7);
        assertThat(Math.min(grantsOf[0], grantsOf[1]))
                .as("each instance, revoked at least once, was granted again: neither stays out").isGreaterThanOrEqualTo(2);
        register.assertInvariants(false, true);
    }

    /**
     * Stops every instance and waits until each selector has ended: stop() only interrupts the selector, which may
     * still be granted by an acquisition that crossed the interrupt, and then revokes on its way out (CI saw a grant
     * after stop(), revoked only after the check had run). Each instance's events are then paired.
     */
    private void stopAll() throws InterruptedException {
        instances.forEach(instance -> instance.initiator.stop());
        for (Instance instance : instances) {
            instance.selector.shutdown();
            assertThat(instance.selector.awaitTermination(10, SECONDS)).as("%s: its selector ended", instance).isTrue();
            assertThat(instance.writer.heard().size() % 2).as("%s: a revoked per elected: %s", instance,
                    instance.writer.heard()).isZero();
        }
    }

    /** A grant seen as a term, so that the register can guard with it: valid while granted and the context leads. */
    private static final class Grant implements LeaderTerm {
        private final String role;
        private final long epoch;
        private final Context context;
        private final Instant since = Instant.now();
        private final long grantedAt = System.nanoTime();
        private final CompletableFuture<Cause> revoked = new CompletableFuture<>();

        Grant(String role, long epoch, Context context) {
            this.role = role;
            this.epoch = epoch;
            this.context = context;
        }

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public Instant since() {
            return since;
        }

        @Override
        public boolean isValid() {
            return !revoked.isDone() && context.isLeader();
        }

        @Override
        public Duration validFor() {
            return isValid() ? Duration.ofMillis(HEART_BEAT_MS) : Duration.ZERO;
        }

        @Override
        public long requireValid() {
            if (!isValid()) {
                throw new LockLostException(role, "grant " + epoch + " of " + role + " is no longer valid");
            }
            return epoch;
        }

        @Override
        public CompletableFuture<Cause> revocationAsync() {
            return revoked;
        }
    }

    /** One application: Spring Integration's initiator on a registry of its own client, with a writing candidate. */
    private final class Instance {
        final String id;
        final LockRegistryLeaderInitiator initiator;
        /** Runs the initiator's selector, so that the test can wait for it to end. */
        final java.util.concurrent.ExecutorService selector = java.util.concurrent.Executors.newSingleThreadExecutor();
        final FencedRegister.Candidate writer;
        volatile Grant current;
        volatile Thread writing;

        Instance(String id, LockClient client) {
            this(id, client, false);
        }

        Instance(String id, LockClient client, boolean forgetLostHolds) {
            this.id = id;
            DefaultCandidate candidate = new DefaultCandidate(id, ROLE) {
                @Override
                public void onGranted(Context context) {
                    super.onGranted(context);
                    Grant grant = new Grant(ROLE, grants.incrementAndGet(), context);
                    current = grant;
                    writer.elected(grant);
                    Thread thread = new Thread(() -> {
                        try {
                            writer.writeEvery(Duration.ofMillis(2)).run(grant);
                        } catch (Exception e) {
                            // interrupted: revoked
                        }
                    }, "writer-" + id + "-" + grant.epoch);
                    writing = thread;
                    thread.start();
                }

                @Override
                public void onRevoked(Context context) {
                    Grant grant = current;
                    grant.revoked.complete(LeaderTerm.Cause.LEASE_LOST);
                    writing.interrupt(); // the work stops before onRevoked returns
                    try {
                        writing.join(5_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    writer.revoked(grant);
                    super.onRevoked(context);
                }
            };
            DlockLockRegistry registry = new DlockLockRegistry(client);
            registry.setForgetLostHolds(forgetLostHolds);
            initiator = new LockRegistryLeaderInitiator(registry, candidate);
            initiator.setTaskExecutor(new org.springframework.core.task.support.TaskExecutorAdapter(selector));
            initiator.setHeartBeatMillis(HEART_BEAT_MS);
            initiator.setBusyWaitMillis(20);
            writer = register.join(id, () -> {
                Grant grant = current;
                return grant != null && grant.isValid();
            });
            instances.add(this);
            initiator.start();
        }

        boolean leads() {
            Grant grant = current;
            return grant != null && grant.isValid();
        }

        @Override
        public String toString() {
            return id + "{leads=" + leads() + ", context leader=" + initiator.getContext().isLeader() + "}";
        }
    }
}
