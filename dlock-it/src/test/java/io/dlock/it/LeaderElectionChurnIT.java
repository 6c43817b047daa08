package io.dlock.it;

import io.dlock.LeaderTerm;
import io.dlock.it.support.ElectionCandidates;
import io.dlock.it.support.ElectionCandidates.Candidate;
import io.dlock.it.support.PubSubHoldingProxy;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.FencedRegister;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.StressShare;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.dlock.it.support.ElectionCandidates.FAST;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Churn of up to ten candidates of one election (issue 44, item 7): candidates start, close, resign and die while
 * the others compete, for a bounded time, every one writing its epoch through {@code requireValid()} to one
 * {@link FencedRegister} every 2 ms while it leads. A candidate dies as a killed process does, as far as Redis can
 * tell: the TCP proxy it talks through closes every connection and refuses new ones, so its hold stays in Redis until
 * its lease ends. Its object goes on (as a partitioned process would: the harder case) and must count its own term
 * invalid by its renew deadline, before that lease ends; it is closed once it has stepped down. Redis keeps
 * every key throughout, so the strict invariants hold: no overlap, no rejected write, no write after its term's
 * revocation, one revoked per elected, epochs rising.
 *
 * <p>36 s of churn in a plain run; CI's legs each run their {@link StressShare} of those seconds.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class LeaderElectionChurnIT {
    private static final int SECONDS_OF_CHURN = 36;
    private static final int MAX_CANDIDATES = 10;

    private enum Action { START, RESIGN, CLOSE, DIE }

    /** A leader-ending action: when, how, and the epoch it ended. */
    private record Ending(long at, Action action, long epoch) {
    }

    @Test
    void tenCandidatesStartingClosingResigningAndDying(RedisServer server) throws Exception {
        StressShare share = StressShare.current();
        int seconds = Math.max(1, share.count(SECONDS_OF_CHURN));
        String name = "it:LeaderElectionChurnIT";
        FencedRegister register = new FencedRegister(name);
        Random random = new Random(); // the order of actions is not what is tested: the invariants hold for any
        Map<Candidate, PubSubHoldingProxy> proxies = new HashMap<>();
        List<Candidate> live = new ArrayList<>();
        List<Ending> endings = new ArrayList<>();
        Map<Action, Integer> counts = new HashMap<>();
        List<Thread> dying = new ArrayList<>();
        try (ElectionCandidates candidates = new ElectionCandidates(name, FAST, register)) {
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            while (System.nanoTime() < end) {
                Candidate leader = live.stream().filter(Candidate::leads).findFirst().orElse(null);
                Action action = live.size() < 3 || (live.size() < MAX_CANDIDATES && random.nextInt(3) == 0)
                        ? Action.START : Action.values()[1 + random.nextInt(3)];
                Candidate target = action == Action.START ? null
                        : leader != null && random.nextInt(4) > 0 ? leader : live.get(random.nextInt(live.size()));
                long epoch = target == null ? 0 : target.election().currentTerm().map(LeaderTerm::epoch).orElse(0L);
                long at = System.nanoTime();
                switch (action) {
                    case START -> {
                        PubSubHoldingProxy proxy = PubSubHoldingProxy.start(server.port());
                        Candidate started = candidates.start(proxy.uri());
                        proxies.put(started, proxy);
                        live.add(started);
                    }
                    case RESIGN -> target.election().resign();
                    case CLOSE -> {
                        target.election().close();
                        target.client().close();
                        proxies.remove(target).close();
                        live.remove(target);
                    }
                    case DIE -> {
                        proxies.remove(target).close(); // Redis sees the process gone; its hold stays to its lease
                        live.remove(target);
                        Thread reaper = new Thread(() -> { // cut off, it goes on until its own clock ends its term
                            Await.until(Duration.ofSeconds(10), () -> !target.leads(), "a cut-off leader steps down");
                            target.election().close();
                            target.client().close();
                        }, "reap-" + target.id());
                        reaper.start();
                        dying.add(reaper);
                    }
                }
                counts.merge(action, 1, Integer::sum);
                if (epoch != 0 && target == leader) {
                    endings.add(new Ending(at, action, epoch));
                }
                Thread.sleep(150 + random.nextInt(200));
            }
            for (Thread reaper : dying) {
                reaper.join(30_000);
            }
            Map<Action, List<Long>> latencies = new HashMap<>();
            for (Ending ending : endings) {
                long next = candidates.terms().stream().filter(t -> t.epoch() > ending.epoch)
                        .map(t -> candidates.electedAt(t.epoch())).filter(t -> t != null && t - ending.at > 0)
                        .mapToLong(Long::longValue).min().orElse(-1);
                if (next > 0) {
                    latencies.computeIfAbsent(ending.action, a -> new ArrayList<>()).add((next - ending.at) / 1000);
                }
            }
            candidates.close();
            proxies.values().forEach(PubSubHoldingProxy::close);
            FencedRegister.Figures figures = register.figures();
            System.out.printf("leader election churn, %d s (share %s), up to %d candidates: actions %s; %s%n",
                    seconds, share, MAX_CANDIDATES, counts, figures);
            for (Action action : List.of(Action.RESIGN, Action.CLOSE, Action.DIE)) {
                List<Long> micros = latencies.getOrDefault(action, List.of());
                System.out.printf("  leader %s -> next leader elected: %s%n", action, percentiles(micros));
            }
            register.assertInvariants(true, true);
            assertThat(figures.epochs()).as("accepted epochs").isSorted();
            assertThat(figures.elections()).as("elections in %d s", seconds).isGreaterThan(seconds / 3);
            List<Long> resigns = latencies.getOrDefault(Action.RESIGN, List.of());
            if (resigns.size() >= 5) {
                Collections.sort(resigns);
                assertThat(resigns.get(resigns.size() / 2)).as("median µs from a resign to the next leader, loopback")
                        .isLessThan(250_000);
            }
            List<Long> deaths = latencies.getOrDefault(Action.DIE, List.of());
            assertThat(deaths).as("µs from a leader's death to the next leader: lease (1.5 s) + retry (0.2 s) + 1 s")
                    .allMatch(micros -> micros < 2_700_000);
        }
    }

    private static String percentiles(List<Long> micros) {
        if (micros.isEmpty()) {
            return "none";
        }
        List<Long> sorted = new ArrayList<>(micros);
        Collections.sort(sorted);
        return String.format("n=%d p50 %.1f ms, p99 %.1f ms, max %.1f ms", sorted.size(),
                sorted.get(sorted.size() / 2) / 1000.0,
                sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1)) / 1000.0,
                sorted.get(sorted.size() - 1) / 1000.0);
    }
}
