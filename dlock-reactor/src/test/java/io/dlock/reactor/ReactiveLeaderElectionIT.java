package io.dlock.reactor;

import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.redisprocess.Await;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reactive leader election against a real Redis, under BlockHound: the works of two clients' candidates never
 * overlap, also through the 30 ms cancel clean-up of each work (the lock outlives the work); a fenced register sees
 * epochs only go up; revocation by another client's {@code forceUnlock} cancels the work; events tell a late
 * subscriber the current term, and each term's end once; cancelling {@code whileLeader} ends the candidacy.
 */
@ExtendWith({NoBlocking.class, io.dlock.testkit.RedisExtension.class})
@Timeout(value = 120, unit = SECONDS)
class ReactiveLeaderElectionIT {
    static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(1500)).renewDeadline(Duration.ofMillis(1000)).retryPeriod(Duration.ofMillis(200))
            .stopTimeout(Duration.ofSeconds(1)).build();
    private static final Duration SETTLE = Duration.ofSeconds(10);
    /** How long a work's cancel clean-up takes: another leader inside during it would be an overlap. */
    private static final long CLEAN_UP_MS = 30;

    private String name;

    @BeforeEach
    void name(TestInfo info) {
        name = "election:" + info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void twoClientsWorksNeverOverlapThroughResignChurn(LockClient a, LockClient b) {
        List<ReactiveLeaderElection> candidates = List.of(
                ReactiveLockClient.of(a).getLeaderElection(name, FAST),
                ReactiveLockClient.of(b).getLeaderElection(name, FAST));
        Occupancy occupancy = new Occupancy(1);
        AtomicLong highestEpoch = new AtomicLong();
        AtomicInteger staleWrites = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger terms = new AtomicInteger();
        List<Disposable> running = candidates.stream().map(candidate -> candidate.whileLeader(term -> {
            terms.incrementAndGet();
            AtomicInteger entered = new AtomicInteger();
            String[] entry = new String[1];
            return Flux.interval(Duration.ofMillis(2)) // on Schedulers.parallel(): checked by BlockHound
                    .doOnSubscribe(s -> entry[0] = occupancy.enter(candidate.toString()))
                    .map(tick -> {
                        // the fenced register: a write is accepted only with an epoch at least the highest seen
                        long epoch = term.requireValid();
                        if (highestEpoch.accumulateAndGet(epoch, Math::max) > epoch) {
                            staleWrites.incrementAndGet();
                        }
                        return writes.incrementAndGet();
                    })
                    .onErrorResume(LockLostException.class, e -> Mono.never()) // revoked: wait for the cancel
                    .doFinally(signal -> {
                        if (entered.getAndIncrement() == 0) {
                            sleep(CLEAN_UP_MS); // on the cancelling thread: the election's task thread
                            occupancy.leave(entry[0]);
                        }
                    });
        }).subscribe()).toList();
        try {
            int before = 0; // the terms begun before the last resign: the next term's work makes one more
            for (int round = 0; round < 12; round++) {
                int termsBefore = before;
                Await.until(SETTLE, () -> terms.get() > termsBefore
                        && candidates.stream().anyMatch(ReactiveLeaderElection::isLeader), "a new term");
                int writesBefore = writes.get();
                Await.until(SETTLE, () -> writes.get() > writesBefore + 5, "writes in the term");
                ReactiveLeaderElection leader = candidates.stream().filter(ReactiveLeaderElection::isLeader)
                        .findFirst().orElse(null);
                before = terms.get();
                if (leader != null) {
                    StepVerifier.create(leader.resign()).expectComplete().verify(SETTLE);
                }
            }
        } finally {
            running.forEach(Disposable::dispose);
            candidates.forEach(ReactiveLeaderElectionIT::closed);
            // checked first, also when a round failed: an overlap can hold up the hand-overs
            assertThat(occupancy.most()).as("works inside at once; first excess: %s", occupancy.firstExcess())
                    .isEqualTo(1);
        }
        Await.until(SETTLE, () -> occupancy.inside() == 0, "every work ended");
        assertThat(staleWrites).as("writes with an epoch below the highest accepted").hasValue(0);
        assertThat(terms.get()).isGreaterThanOrEqualTo(12);
    }

    @Test
    void forceUnlockByAnotherClientCancelsTheWorkAndTheCandidateWinsAgain(LockClient a, LockClient b) {
        ReactiveLeaderElection election = ReactiveLockClient.of(a).getLeaderElection(name, FAST);
        Queue<LeadershipEvent> events = new ConcurrentLinkedQueue<>();
        Disposable told = election.events().publishOn(Schedulers.parallel()).subscribe(events::add);
        Queue<String> workSignals = new ConcurrentLinkedQueue<>();
        Disposable leading = election.whileLeader(term -> Flux.never()
                        .doOnSubscribe(s -> workSignals.add("start " + term.epoch()))
                        .doFinally(signal -> workSignals.add(signal + " " + term.epoch())))
                .subscribe();
        try {
            Await.until(SETTLE, election::isLeader, "leader");
            long first = election.currentTerm().orElseThrow().epoch();
            StepVerifier.create(ReactiveLockClient.of(b).getFencedLock(name).forceUnlock()
                            .subscribeOn(Schedulers.parallel()))
                    .expectNext(true).expectComplete().verify(SETTLE);
            Await.until(SETTLE, () -> workSignals.contains("cancel " + first), () -> "work cancelled: " + workSignals);
            Await.until(SETTLE, () -> election.currentTerm().map(t -> t.epoch() > first && t.isValid())
                    .orElse(false), "a new term");
            Await.until(SETTLE, () -> events.size() >= 3, () -> "events: " + events);
            List<LeadershipEvent> seen = List.copyOf(events);
            assertThat(seen.get(0).isElected()).isTrue();
            assertThat(seen.get(0).epoch()).isEqualTo(first);
            assertThat(seen.get(1).revocationCause()).contains(LeaderTerm.Cause.LEASE_LOST);
            assertThat(seen.get(1).epoch()).isEqualTo(first);
            assertThat(seen.get(2).isElected()).isTrue();
            assertThat(seen.get(2).epoch()).isGreaterThan(first);
            assertThat(List.copyOf(workSignals).subList(0, 2)).containsExactly("start " + first, "cancel " + first);
        } finally {
            leading.dispose();
            told.dispose();
            closed(election);
        }
    }

    @Test
    void aLateSubscriberHearsTheCurrentTermFirstThenItsEnd(LockClient a) {
        ReactiveLeaderElection election = ReactiveLockClient.of(a).getLeaderElection(name, FAST);
        Disposable leading = election.whileLeader(term -> Flux.never()).subscribe();
        try {
            Await.until(SETTLE, election::isLeader, "leader");
            long epoch = election.currentTerm().orElseThrow().epoch();
            StepVerifier.create(election.events().publishOn(Schedulers.parallel()).take(2))
                    .assertNext(event -> assertThat(event).isEqualTo(LeadershipEvent.elected(
                            election.currentTerm().orElseThrow())))
                    .then(() -> election.resign().subscribe())
                    .assertNext(event -> {
                        assertThat(event.epoch()).isEqualTo(epoch);
                        assertThat(event.revocationCause()).contains(LeaderTerm.Cause.RESIGNED);
                    })
                    .expectComplete()
                    .verify(SETTLE);
        } finally {
            leading.dispose();
            closed(election);
        }
    }

    @Test
    void cancellingWhileLeaderCancelsTheWorkThenFreesTheLock(LockClient a, LockClient b) {
        ReactiveLeaderElection election = ReactiveLockClient.of(a).getLeaderElection(name, FAST);
        AtomicInteger cleanedUp = new AtomicInteger();
        AtomicInteger freeDuringCleanUp = new AtomicInteger();
        io.dlock.DistributedLock theirs = b.getFencedLock(name);
        Queue<LeadershipEvent> events = new ConcurrentLinkedQueue<>();
        Disposable told = election.events().subscribe(events::add);
        Disposable leading = election.whileLeader(term -> Flux.never().doFinally(signal -> {
            // the lock must still be held while the work's cancel runs, to its end; longer than a retry period, the
            // longest the core may take to release after a task returned
            sleep(FAST.retryPeriod().toMillis() + 100);
            if (!theirs.isLocked()) {
                freeDuringCleanUp.incrementAndGet();
            }
            cleanedUp.incrementAndGet();
        })).subscribe();
        Await.until(SETTLE, election::isLeader, "leader");
        leading.dispose();
        Await.until(SETTLE, () -> !theirs.isLocked(), "the lock released");
        closed(election);
        assertThat(cleanedUp).hasValue(1);
        assertThat(freeDuringCleanUp).hasValue(0);
        Await.until(SETTLE, () -> events.size() == 2, () -> "events: " + events);
        assertThat(List.copyOf(events).get(1).revocationCause()).contains(LeaderTerm.Cause.CLOSED);
        told.dispose();
        StepVerifier.create(election.whileLeader(term -> Flux.never()))
                .expectError(IllegalStateException.class).verify(SETTLE);
    }

    @Test
    void aFailingWorkFailsTheFluxAndEndsTheCandidacy(LockClient a, LockClient b) {
        ReactiveLeaderElection election = ReactiveLockClient.of(a).getLeaderElection(name, FAST);
        StepVerifier.create(election.whileLeader(term -> Flux.error(new IllegalStateException("boom"))))
                .expectErrorMessage("boom")
                .verify(SETTLE);
        Await.until(SETTLE, () -> !b.getFencedLock(name).isLocked(), "the lock released");
        Await.until(SETTLE, () -> election.currentTerm().isEmpty(), "no term");
        closed(election);
    }

    /** Waits for the candidate's close (that a cancelled whileLeader started), before the client closes. */
    static void closed(ReactiveLeaderElection election) {
        StepVerifier.create(election.close()).expectComplete().verify(SETTLE);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
