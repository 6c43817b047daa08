package io.dlock.it.support;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.FencedRegister;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Candidates of one election for the election's fault tests, each on a client of its own, each writing its epoch to
 * one {@link FencedRegister} every 2 ms while it leads. Remembers every term won (in the order the listeners heard
 * them) and its cause of revocation. {@link #close()} closes every election, then every client.
 */
public final class ElectionCandidates implements AutoCloseable {
    /** Lease 1.5 s, renew deadline 1 s, retry period 200 ms, stop timeout 1 s. */
    public static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(1500)).renewDeadline(Duration.ofMillis(1000)).retryPeriod(Duration.ofMillis(200))
            .stopTimeout(Duration.ofSeconds(1)).build();

    private final String name;
    private final LeaderElectionSettings settings;
    private final FencedRegister register;
    private final List<Candidate> candidates = new CopyOnWriteArrayList<>();
    /** Every term won, in the order elected was heard. */
    private final List<LeaderTerm> terms = new CopyOnWriteArrayList<>();
    /** When each epoch's elected was heard, on System.nanoTime(). */
    private final Map<Long, Long> electedAt = new ConcurrentHashMap<>();

    public ElectionCandidates(String name, LeaderElectionSettings settings, FencedRegister register) {
        this.name = name;
        this.settings = settings;
        this.register = register;
    }

    /** A candidate: its client, its election, its side of the register. */
    public record Candidate(String id, LockClient client, LeaderElection election, FencedRegister.Candidate writer) {
        public boolean leads() {
            return election.isLeader();
        }

        @Override
        public String toString() {
            return id + (leads() ? " (leads)" : "");
        }
    }

    /**
     * A new candidate on a new client of {@code redisUri} (command timeout 1 s: also the connect timeout, which a
     * loaded test machine missed at 500 ms), started.
     */
    public Candidate start(String redisUri) {
        return start(redisUri, config -> { });
    }

    /** As {@link #start(String)}, with the client's configuration adjusted by {@code tune}. */
    public Candidate start(String redisUri, Consumer<LockClientConfig.Builder> tune) {
        LockClientConfig.Builder config = LockClientConfig.builder().redisUri(redisUri)
                .commandTimeout(Duration.ofSeconds(1));
        tune.accept(config);
        LockClient client = LockClient.create(config.build());
        LeaderElection election = client.getLeaderElection(name, settings);
        String id = "c" + candidates.size();
        FencedRegister.Candidate writer = register.join(id, election);
        election.addListener(new LeaderListener() {
            @Override
            public void elected(LeaderTerm term) {
                electedAt.put(term.epoch(), System.nanoTime());
                terms.add(term);
            }
        });
        election.runWhileLeader(writer.writeEvery(Duration.ofMillis(2)));
        Candidate candidate = new Candidate(id, client, election, writer);
        candidates.add(candidate);
        election.start();
        return candidate;
    }

    public List<Candidate> all() {
        return List.copyOf(candidates);
    }

    /** @return every term won so far, in the order their elected was heard */
    public List<LeaderTerm> terms() {
        return List.copyOf(terms);
    }

    /** @return when the elected of {@code epoch} was heard, on System.nanoTime(), or null */
    public Long electedAt(long epoch) {
        return electedAt.get(epoch);
    }

    /** @return the highest epoch of every term won so far, 0 before the first */
    public long highestEpoch() {
        return terms.stream().mapToLong(LeaderTerm::epoch).max().orElse(0);
    }

    /**
     * Waits until exactly one candidate leads, in a term with an epoch above {@code above} whose elected has been
     * heard.
     */
    public Candidate awaitLeaderAbove(long above, Duration within) {
        AtomicReference<Candidate> leader = new AtomicReference<>();
        Await.until(within, () -> {
            List<Candidate> leading = candidates.stream().filter(Candidate::leads).toList();
            long epoch = leading.size() != 1 ? 0
                    : leading.get(0).election.currentTerm().map(LeaderTerm::epoch).orElse(0L);
            if (epoch > above && electedAt.containsKey(epoch)) {
                leader.set(leading.get(0));
                return true;
            }
            return false;
        }, () -> "expected one leader with an epoch above " + above + " among " + candidates + ", terms " + terms);
        return leader.get();
    }

    @Override
    public void close() {
        List<Thread> closers = new ArrayList<>();
        for (Candidate candidate : candidates) { // at once: each close may wait a command timeout on a dead Redis
            Thread closer = new Thread(() -> {
                candidate.election.close();
                candidate.client.close();
            }, "close-" + candidate.id);
            closer.start();
            closers.add(closer);
        }
        for (Thread closer : closers) {
            try {
                closer.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
