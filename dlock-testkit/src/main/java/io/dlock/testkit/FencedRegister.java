package io.dlock.testkit;

import io.dlock.LeaderElection;
import io.dlock.LeaderElection.LeaderTask;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LockLostException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * A fenced register for proving a {@link LeaderElection} (or any leader election that hands out epochs): the resource
 * outside the candidates that accepts a write only with an epoch at least the highest it has accepted, and the
 * checker of what an election promises. Each candidate {@linkplain #join joins} it, tells it of its terms (a listener
 * does so for a {@code LeaderElection}) and, while it believes it leads, writes through its term's
 * {@link LeaderTerm#requireValid() guard} every few milliseconds ({@link Candidate#writeEvery}).
 *
 * <p>What it checks, on every write and every event:
 * <ul>
 *   <li><b>fencing</b>: a write whose epoch is below the highest accepted is rejected and counted
 *       ({@link Figures#rejected()}); the accepted epochs therefore never decrease. While Redis keeps the leader's key
 *       nothing is rejected;</li>
 *   <li><b>no write after its term's revocation</b>: a write whose guard began after its term's revocation was
 *       observed, and still passed, is a violation ({@link Figures#lateWrites()}). A write guarded just before the
 *       revocation and arriving after it is the guard-to-write gap every fenced system has: counted
 *       ({@link Figures#afterRevocation()}), allowed;</li>
 *   <li><b>no overlap</b>: an accepted write at a moment when another candidate believed it led, with the writer's
 *       term still valid after that reading, is an overlap ({@link Figures#overlaps()}). While Redis keeps the key
 *       there is none; after a key loss (a restart without persistence, a failover, a {@code forceUnlock}) there may
 *       be some until the old leader learns of the loss, and fencing is what keeps the register right then;</li>
 *   <li><b>one {@code revoked} per {@code elected}</b>, of the same epoch, never a {@code revoked} without an
 *       {@code elected}, never two terms with one epoch.</li>
 * </ul>
 *
 * <p>Thread-safe. Times are {@link System#nanoTime()}. Not for production: a test aid, in the test kit so that tests
 * of every module use one register with one set of rules.
 */
public final class FencedRegister {
    /** How many violations are described in a failure message; all are counted. */
    private static final int DESCRIBED = 10;

    private final String name;
    private final List<Candidate> candidates = new CopyOnWriteArrayList<>();
    /** The nanoTime at which each epoch's revocation was observed (at or after it happened). */
    private final Map<Long, Long> revokedAt = new ConcurrentHashMap<>();

    // guarded by this
    private long highest;
    private long accepted;
    private long rejected;
    private long refusedByGuard;
    private long afterRevocation;
    private long lateWrites;
    private long overlaps;
    private final List<Long> acceptedEpochs = new ArrayList<>();
    private final Set<Long> electedEpochs = new HashSet<>();
    private int elections;
    private int revocations;
    private final List<String> violations = new ArrayList<>();
    private final List<String> overlapsSeen = new ArrayList<>();

    /** @param name names the register in messages (the election's name, say) */
    public FencedRegister(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * A candidate told of its terms by hand ({@link Candidate#elected}, {@link Candidate#revoked}): for an election
     * other than dlock's.
     *
     * @param id    names the candidate in messages
     * @param leads whether the candidate believes it leads now; must not block
     */
    public Candidate join(String id, BooleanSupplier leads) {
        Candidate candidate = new Candidate(id, leads);
        candidates.add(candidate);
        return candidate;
    }

    /**
     * A dlock candidate: a listener added to {@code election} tells the register of its terms, and
     * {@link LeaderElection#isLeader()} says whether it believes it leads. Join before {@link LeaderElection#start()}.
     */
    public Candidate join(String id, LeaderElection election) {
        Candidate candidate = join(id, election::isLeader);
        election.addListener(new LeaderListener() {
            @Override
            public void elected(LeaderTerm term) {
                candidate.elected(term);
            }

            @Override
            public void revoked(LeaderTerm term, LeaderTerm.Cause cause) {
                candidate.revoked(term);
            }
        });
        return candidate;
    }

    /** One candidate of the register: its terms and its writes. */
    public final class Candidate {
        private final String id;
        private final BooleanSupplier leads;
        /** "elected:E" and "revoked:E", in the order told. */
        private final List<String> heard = new CopyOnWriteArrayList<>();

        private Candidate(String id, BooleanSupplier leads) {
            this.id = id;
            this.leads = leads;
        }

        /** @return the id given at {@link #join} */
        public String id() {
            return id;
        }

        /** @return whether the candidate believes it leads now */
        public boolean leads() {
            return leads.getAsBoolean();
        }

        /** @return what the candidate was told, "elected:E" and "revoked:E" in order */
        public List<String> heard() {
            return List.copyOf(heard);
        }

        /**
         * The candidate was told it leads in {@code term}. The register watches the term's
         * {@link LeaderTerm#revocationAsync() revocation} from here.
         */
        public void elected(LeaderTerm term) {
            long epoch = term.epoch();
            synchronized (FencedRegister.this) {
                elections++;
                if (!electedEpochs.add(epoch)) {
                    violation(id + " elected with epoch " + epoch + ", which an earlier term had");
                }
                String last = heard.isEmpty() ? null : heard.get(heard.size() - 1);
                if (last != null && last.startsWith("elected:")) {
                    violation(id + " elected (epoch " + epoch + ") without a revoked for " + last);
                }
                heard.add("elected:" + epoch);
            }
            term.revocationAsync().whenComplete((cause, error) -> revokedAt.putIfAbsent(epoch, System.nanoTime()));
        }

        /** The candidate was told its {@code term} ended. */
        public void revoked(LeaderTerm term) {
            long epoch = term.epoch();
            synchronized (FencedRegister.this) {
                revocations++;
                String last = heard.isEmpty() ? null : heard.get(heard.size() - 1);
                if (!("elected:" + epoch).equals(last)) {
                    violation(id + " revoked (epoch " + epoch + ") after " + (last == null ? "nothing" : last));
                }
                heard.add("revoked:" + epoch);
            }
            revokedAt.putIfAbsent(epoch, System.nanoTime());
        }

        /**
         * Writes once: the guard ({@link LeaderTerm#requireValid()}), then the register takes the write or rejects
         * it, and checks it (see the class comment).
         *
         * @return whether the write was accepted; false when the guard refused (no write then) or the epoch was stale
         */
        public boolean write(LeaderTerm term) {
            long guardAt = System.nanoTime();
            long epoch;
            try {
                epoch = term.requireValid();
            } catch (LockLostException refused) {
                synchronized (FencedRegister.this) {
                    refusedByGuard++;
                }
                return false;
            }
            synchronized (FencedRegister.this) {
                if (epoch < highest) {
                    rejected++;
                    return false;
                }
                if (epoch > highest || acceptedEpochs.isEmpty()) {
                    acceptedEpochs.add(epoch);
                }
                highest = epoch;
                accepted++;
                Long revoked = revokedAt.get(epoch);
                if (revoked != null) {
                    if (revoked - guardAt < 0) {
                        lateWrites++;
                        violation(id + " wrote with epoch " + epoch + ": its guard passed "
                                + (guardAt - revoked) / 1000 + " µs after the term's revocation was observed");
                    } else {
                        afterRevocation++;
                    }
                }
                for (Candidate other : candidates) {
                    if (other != this && other.leads() && term.isValid()) { // the writer valid before and after
                        overlaps++;
                        String seen = id + " wrote epoch " + epoch + " while " + other.id + " led";
                        if (overlapsSeen.size() < DESCRIBED && !overlapsSeen.contains(seen)) {
                            overlapsSeen.add(seen);
                        }
                    }
                }
                return true;
            }
        }

        /**
         * @param period the pause between two writes (at least 1 ms)
         * @return a task for {@link LeaderElection#runWhileLeader} that {@linkplain #write writes} every
         *         {@code period} until its thread is interrupted; a refused guard does not end it (the election
         *         revokes the term and interrupts it)
         */
        public LeaderTask writeEvery(Duration period) {
            long millis = Math.max(1, period.toMillis());
            return term -> {
                while (!Thread.currentThread().isInterrupted()) {
                    write(term);
                    Thread.sleep(millis);
                }
            };
        }

        @Override
        public String toString() {
            return id;
        }
    }

    private void violation(String what) {
        if (violations.size() < DESCRIBED) {
            violations.add(what);
        } else if (violations.size() == DESCRIBED) {
            violations.add("…");
        }
    }

    /**
     * What the register saw so far.
     *
     * @param accepted        writes accepted
     * @param rejected        writes rejected for a stale epoch
     * @param refusedByGuard  writes the term's guard refused (never sent)
     * @param afterRevocation accepted writes guarded before their term's revocation, arriving after it
     * @param lateWrites      accepted writes guarded after their term's revocation: violations
     * @param overlaps        accepted writes while another candidate believed it led
     * @param elections       terms told elected
     * @param revocations     terms told revoked
     * @param epochs          the distinct accepted epochs, in the order accepted (never decreasing)
     * @param violations      descriptions of the first violations of the always-true rules, and of overlaps
     */
    public record Figures(long accepted, long rejected, long refusedByGuard, long afterRevocation, long lateWrites,
                          long overlaps, int elections, int revocations, List<Long> epochs, List<String> violations) {
        @Override
        public String toString() {
            return String.format("%d elections, %d revocations, %d writes accepted, %d rejected (stale epoch), "
                            + "%d refused by the guard, %d after a revocation (guarded before it), %d late, "
                            + "%d overlapping, %d epochs", elections, revocations, accepted, rejected,
                    refusedByGuard, afterRevocation, lateWrites, overlaps, epochs.size());
        }
    }

    /** @return the figures so far */
    public synchronized Figures figures() {
        List<String> described = new ArrayList<>(violations);
        described.addAll(overlapsSeen);
        return new Figures(accepted, rejected, refusedByGuard, afterRevocation, lateWrites, overlaps, elections,
                revocations, List.copyOf(acceptedEpochs), described);
    }

    /** @return the highest epoch accepted so far, 0 before the first write */
    public synchronized long highest() {
        return highest;
    }

    /**
     * Checks the rules that always hold: no late write, one {@code revoked} per {@code elected} of the same epoch,
     * distinct epochs, at least one accepted write; and, when {@code redisKeptTheKey} (no key loss in the run), no
     * overlap and no rejected write.
     *
     * @param redisKeptTheKey whether Redis kept every leader's key (no restart, failover, forced unlock, DEL)
     * @param ended           whether every candidate has stopped (closed): then each heard a revoked last
     * @throws AssertionError naming what failed, with the figures
     */
    public synchronized void assertInvariants(boolean redisKeptTheKey, boolean ended) {
        List<String> failed = new ArrayList<>(violations);
        if (accepted == 0) {
            failed.add("no write was accepted");
        }
        if (redisKeptTheKey && overlaps > 0) {
            failed.add(overlaps + " writes while another candidate led, with Redis keeping the key: " + overlapsSeen);
        }
        if (redisKeptTheKey && rejected > 0) {
            failed.add(rejected + " writes with a stale epoch, with Redis keeping the key");
        }
        if (ended) {
            for (Candidate candidate : candidates) {
                List<String> heard = candidate.heard();
                if (!heard.isEmpty() && !heard.get(heard.size() - 1).startsWith("revoked:")) {
                    failed.add(candidate.id + " ended without a revoked for its last term: " + heard);
                }
            }
        }
        if (!failed.isEmpty()) {
            throw new AssertionError("fenced register '" + name + "': " + String.join("; ", failed) + " ("
                    + figures() + ")");
        }
    }

    @Override
    public String toString() {
        return "FencedRegister{" + name + ": " + figures() + "}";
    }
}
