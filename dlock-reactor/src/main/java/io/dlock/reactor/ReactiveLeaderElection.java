package io.dlock.reactor;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The Reactor face of one candidate in a {@link LeaderElection} ({@link ReactiveLockClient#getLeaderElection}): its
 * events as a {@code Flux}, and work that runs per term and is cancelled when the term ends. The timing rule, the
 * epochs and the wire are the core's ({@link LeaderElection}); so is the order a term ends in: the term is revoked
 * ({@link LeaderTerm#isValid()} false), the work is cancelled and its cancel runs through it, and only then is the
 * lock released, so no other candidate leads before this one's work has stopped.
 *
 * <pre>{@code
 * ReactiveLeaderElection election = ReactiveLockClient.of(client).getLeaderElection("billing-scheduler");
 * Disposable leading = election.whileLeader(term -> Flux.interval(Duration.ofSeconds(1))
 *                 .concatMap(tick -> ledger.append(term.requireValid(), nextBatch())))  // a Mono per batch
 *         .subscribe();                                   // a candidate from now on
 * leading.dispose();                                      // ends the term (work cancelled first), then the candidacy
 * }</pre>
 *
 * <p>Nothing here blocks its caller or a subscriber's thread: {@link #resign()} and {@link #close()} are Monos that
 * do the core's blocking calls on {@code Schedulers.boundedElastic()}; the work is subscribed to on the election's
 * task thread and its cancel is made there; events are emitted on the election's event thread. One object per
 * candidate; thread-safe.
 */
public final class ReactiveLeaderElection {
    private final LeaderElection election;
    private final LeaderElectionSettings settings;
    /**
     * The one close of the candidate, shared by {@link #close()} and the cancel of {@link #whileLeader}: the core's
     * {@code close()} is called once from here, so no closer returns before the term's work has stopped.
     */
    private final Mono<Void> closing;

    ReactiveLeaderElection(LeaderElection election, LeaderElectionSettings settings) {
        this.election = election;
        this.settings = settings;
        this.closing = Mono.fromRunnable(election::close).subscribeOn(Schedulers.boundedElastic()).then().cache();
    }

    /** @return the election's name (the fenced lock's name) */
    public String getName() {
        return election.getName();
    }

    /** @return the core candidate behind this one, for its blocking methods */
    public LeaderElection core() {
        return election;
    }

    /** @return whether this candidate holds a valid term now, by its own clock ({@link LeaderElection#isLeader()}) */
    public boolean isLeader() {
        return election.isLeader();
    }

    /** @return the term held, valid or stepping down, or empty ({@link LeaderElection#currentTerm()}) */
    public Optional<LeaderTerm> currentTerm() {
        return election.currentTerm();
    }

    /**
     * The candidate's events: {@linkplain LeadershipEvent#isElected() elected} when it wins a term, revoked (with the
     * cause) when that term ends, in that order, exactly once each per term. A subscriber that comes while a term runs
     * first gets that term's elected event. Subscribing does not make this a candidate ({@link #whileLeader} does, or
     * {@link LeaderElection#start()} on {@link #core()}); the Flux completes never, and a cancel only stops the
     * telling. Events are emitted on the election's event thread and buffered for a slow subscriber.
     *
     * @return the events from the subscription on; each subscription has its own
     */
    public Flux<LeadershipEvent> events() {
        return Flux.create(sink -> {
            LeadershipRelay relay = new LeadershipRelay(sink);
            election.addListener(relay);
            sink.onDispose(() -> election.removeListener(relay));
            election.currentTerm().ifPresent(relay::current);
        }, FluxSink.OverflowStrategy.BUFFER);
    }

    /**
     * Makes this a candidate on subscription and runs {@code work} once per term won, relaying its items. When the
     * term ends (revoked for any {@linkplain LeaderTerm.Cause cause}) the work's subscription is cancelled, and the
     * lock is released only once the cancel has run through the work (its {@code doOnCancel}, {@code doFinally} and
     * the like on the cancelling thread; up to the settings' stop timeout), as for
     * {@link LeaderElection#runWhileLeader}. Clean-up the work hands to another thread is not waited for.
     *
     * <p>A work that completes ends its term (cause {@code TASK_ENDED}) and the candidate competes again after a retry
     * period; a work that fails (or a {@code work} function that throws) ends its term and fails this Flux with the
     * error. Cancelling this Flux ends the candidacy: the election is {@linkplain LeaderElection#close() closed} on
     * {@code Schedulers.boundedElastic()} (the work is cancelled first, then the lock released). The Flux never
     * completes.
     *
     * <p>One candidacy per object: a second subscription fails with {@link IllegalStateException}. Items are
     * buffered for a slow subscriber. The work should call {@link LeaderTerm#requireValid()} before each side effect.
     *
     * @param work makes the work of one term; called on the election's task thread, where it may block
     * @return the items of every term's work
     * @throws NullPointerException when {@code work} is null
     */
    public <T> Flux<T> whileLeader(Function<? super LeaderTerm, ? extends Publisher<? extends T>> work) {
        Objects.requireNonNull(work, "work");
        return Flux.create(sink -> {
            try {
                election.runWhileLeader(new TermWork<T>(work, sink, settings.stopTimeout()));
                election.start();
            } catch (RuntimeException e) {
                sink.error(e);
                return;
            }
            sink.onDispose(() -> closing.subscribe());
        }, FluxSink.OverflowStrategy.BUFFER);
    }

    /**
     * Yields the current term ({@link LeaderElection#resign()}): the term ends (cause {@code RESIGNED}), the work is
     * cancelled, the lock released, and the candidate stays out for a retry period.
     *
     * @return completes once the lock is released (empty when no term was held); the wait runs on
     *         {@code Schedulers.boundedElastic()}
     */
    public Mono<Void> resign() {
        return Mono.fromRunnable(election::resign).subscribeOn(Schedulers.boundedElastic()).then();
    }

    /**
     * Ends the candidacy ({@link LeaderElection#close()}): the term ends (cause {@code CLOSED}), the work is
     * cancelled, the lock released.
     *
     * @return completes once closed (closes once, however often subscribed, also after a cancelled
     *         {@link #whileLeader}); the wait runs on {@code Schedulers.boundedElastic()}
     */
    public Mono<Void> close() {
        return closing;
    }

    @Override
    public String toString() {
        return "ReactiveLeaderElection[" + election + "]";
    }
}
