package io.dlock.internal.semaphore;

import io.dlock.DistributedLock;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.AcquireSteps;
import io.dlock.internal.acquire.Admission;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.Outage;
import io.dlock.internal.acquire.Subject;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.internal.acquire.WakeMode;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One acquisition of permits (either semaphore), on the one wait loop of every kind ({@link AcquireLoop}): attempt,
 * join the channel ({@link WakeMode#COUNTING}: a message {@code n > 0} wakes up to {@code n} waiters of this client),
 * attempt again once subscribed, sleep until a wake-up, the attempt's hint (a leased permit's lease end) or the
 * re-check interval, never past the deadline; ride out an outage without a wait limit, end a timed one by its deadline.
 * With a {@link PermitGate}, a refused acquisition may instead wait in line for a release of this
 * client ({@link LocalPermits}), whose permits then reach it without an attempt of its own.
 *
 * <h2>The lost-reply rule of the permits</h2>
 * Every attempt carries an id of its own, fresh for each attempt ({@link PermitIds#fresh}), under which the script
 * records what it takes: a leased permit's id in the permit table; for the plain semaphore a grant mark,
 * {@code {NAME}:dlock_grant:<id>} (docs/protocol.md §13.1). An attempt whose reply never came (Redis stalled past
 * the command timeout, the connection broke) may have run all the same, so it is undone at once by that id
 * ({@link Grants#giveBack}) — sent before the next attempt, on the same connection, so it runs after the attempt it
 * undoes — and an id that took nothing gives back nothing. So one acquisition takes exactly its permits however many
 * attempts Redis ran, and a give-back can never touch another acquisition's permits. A grant that arrives when its
 * caller has gone (cancel, interrupt, timeout, client closed) is given back too ({@link Grants#undo}). Each give-back
 * is registered with the client's {@link io.dlock.internal.acquire.Acquisitions}, so {@code close()} waits for it
 * before it closes the connections.
 *
 * <p>Thread-safety: the loop runs one step at a time; {@link #granted} is written by the step that completes the
 * result and read after it.
 *
 * @param <T> what a grant is (a permit handle, or {@code Boolean.TRUE})
 */
final class PermitAcquisition<T> {
    /** An attempt's outcome: {@code granted} non-null, or busy with a hint in ms ({@code <= 0}: none). */
    record Reply<T>(T granted, long hintMs) {
        static <T> Reply<T> busy(long hintMs) {
            return new Reply<>(null, hintMs);
        }
    }

    /** What one semaphore kind does in Redis. */
    interface Grants<T> {
        /** One attempt under {@code attemptId}; never blocks. */
        CompletableFuture<Reply<T>> attempt(String attemptId);

        /**
         * Gives back what the attempt {@code attemptId} took, if it ran and took anything (idempotent); sent by text
         * ({@link io.dlock.internal.script.ScriptRunner#runByText}), as it may follow a stall.
         */
        CompletableFuture<?> giveBack(String attemptId);

        /** Gives back a grant nobody will receive. */
        CompletableFuture<?> undo(T granted);

        /**
         * @param ticket the place's ticket ({@link PermitTicket}; null for the plain semaphore)
         * @return the grant of permits handed on by a release of this client ({@link PermitGate})
         */
        default T handedOver(PermitTicket ticket) {
            throw new UnsupportedOperationException("this kind takes no hand-offs");
        }
    }

    private final SemaphoreServices services;
    private final String kind;
    private final String name;
    private final Grants<T> grants;
    private final AcquireLoop loop;
    /** Reported the start (on the caller's thread, so that a listener's trace span has the caller's as its parent). */
    private final Admission admission;
    /** Null for kinds whose permits are not handed on within the client. */
    private final PermitGate gate;
    private volatile T granted;

    /**
     * @param gate      the acquisition's place among this client's releases ({@link PermitGate}), or null
     * @param waitNanos 0 for a single attempt, {@link DistributedLock#WAIT_FOREVER} for no limit, else the wait in ns
     */
    PermitAcquisition(SemaphoreServices services, String kind, String name, boolean leased, String channel,
                      Grants<T> grants, PermitGate gate, long waitNanos) {
        this.admission = services.acquisitions.begin(Subject.permits(kind, name, leased), waitNanos);
        this.services = services;
        this.kind = kind;
        this.name = name;
        this.grants = grants;
        this.gate = gate;
        if (gate != null) {
            gate.whenHanded(ticket -> granted = grants.handedOver(ticket));
        }
        AcquireSteps steps = new AcquireSteps(kind, name, this::attempt, this::undo,
                () -> CompletableFuture.completedFuture(null), List.of(channel), WakeMode.COUNTING, gate,
                cleanup -> { }); // an id per attempt: no later attempt meets this one's give-back
        this.loop = new AcquireLoop(steps, services.acquisitions.waiting(), admission.deadline(), waitNanos == 0);
    }

    /** @return completes with the grant, null when out of time, or the failure (in the API's exceptions) */
    CompletableFuture<T> start() {
        admission.enter(loop, loop.result());
        return loop.start().thenApply(acquired -> acquired ? granted : null);
    }

    /** Waits for the grant (the one interrupt rule, {@link io.dlock.internal.acquire.SyncWaits#awaitOrAbandon}). */
    T await(String operation) throws InterruptedException {
        CompletableFuture<T> result = SyncWaits.mapped(start(), kind, name, operation);
        return services.acquisitions.waits().awaitOrAbandon(result, loop::abandon);
    }

    /**
     * Waits for the outcome of a single attempt, which never waits for permits (interrupts are kept for later), without
     * spinning ({@link io.dlock.internal.acquire.SyncWaits#awaitSingleAttempt}).
     */
    T awaitSingleAttempt(String operation) {
        return services.acquisitions.waits().awaitSingleAttempt(SyncWaits.mapped(start(), kind, name, operation));
    }

    /** The caller's future, as {@code map} of the grant (null when out of time), on the client's executor. */
    <R> CompletableFuture<R> toCaller(Function<? super T, ? extends R> map, String operation) {
        CompletableFuture<R> internal = start().thenApply(map);
        return Callers.toCaller(services.executor, loop::abandon, services.acquisitions::track, internal,
                error -> Errors.toApi(error, kind, name, operation));
    }

    private CompletableFuture<Long> attempt() {
        String attemptId = PermitIds.fresh();
        if (gate != null) {
            gate.attemptSent();
        }
        CompletableFuture<Reply<T>> reply = Errors.call(() -> grants.attempt(attemptId));
        return reply.handle((r, error) -> {
            if (error != null) {
                if (gate != null) {
                    gate.attemptFailed();
                }
                if (Errors.isUnavailable(error)) {
                    // it may have run: undo it by its own id before the loop sends anything else
                    services.acquisitions.track(giveBackUntilAnswered(attemptId,
                            services.acquisitions.nanoTime() + TimeUnit.MILLISECONDS.toNanos(services.grantMarkMs),
                            0));
                }
                throw new CompletionException(Errors.unwrap(error));
            }
            if (r.granted() != null) {
                granted = r.granted();
                return null;
            }
            return Math.max(1, Math.min(services.recheckMs, r.hintMs() > 0 ? r.hintMs() : services.recheckMs));
        });
    }

    /**
     * Sends the give-back of an unanswered attempt until Redis answers it: it is idempotent (what the attempt took
     * comes back once, by its id), so a give-back that itself went unanswered is sent again, with the outage back-off,
     * for as long as the attempt's record lives ({@code grantMarkMs}) and the client is open. The scripts go by text
     * ({@code grants.giveBack} uses {@code runByText}), so a server without them cached runs them in the one command.
     */
    private CompletableFuture<Void> giveBackUntilAnswered(String attemptId, long untilNanos, long lastPauseMs) {
        CompletableFuture<?> sent = Errors.call(() -> grants.giveBack(attemptId));
        return sent.handle((answer, error) -> {
            if (error == null || !Errors.isUnavailable(error) || services.acquisitions.isClosed()
                    || services.acquisitions.nanoTime() - untilNanos > 0) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            long pauseMs = Outage.nextBackoff(lastPauseMs);
            return services.acquisitions.waiting().outage().pause(pauseMs)
                    .thenCompose(ignored -> giveBackUntilAnswered(attemptId, untilNanos, pauseMs));
        }).thenCompose(Function.identity());
    }

    private CompletableFuture<?> undo() {
        T grant = granted;
        return grant == null ? CompletableFuture.completedFuture(null) : Errors.call(() -> grants.undo(grant));
    }
}
