package io.dlock.internal.acquire;

import io.dlock.internal.Errors;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.HoldTable.HoldId;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The lost-reply rule, written once for every lock kind: an acquire attempt whose reply never came (a command timeout,
 * a cut connection) may have run in Redis all the same. The client keeps, in its {@link HoldTable}, the attempts of a
 * hold still awaiting their reply and whether the last one ended unanswered; with the hold's acquisitions that gives
 * the count the client knows ({@link HoldTable#knownCount}), which every kind's scripts reconcile with Redis's: an
 * acquisition that finds more than that adopts the one a lost reply left behind instead of counting on top of it, a
 * release brings the count to what the client knows, and a wait given up after an unanswered attempt drops what that
 * attempt may have left ({@link #dropIfUnanswered}).
 *
 * <p>Thread-safe, lock-free (the table's entries change atomically).
 */
public final class PendingAcquisitions {
    /** Sends a script in "drop-unknown" mode with the hold's current lease (ms) and the count this client knows. */
    public interface DropScript {
        CompletableFuture<Long> send(long currentLeaseMs, long knownCount);
    }

    private final HoldTable holds;

    public PendingAcquisitions(HoldTable holds) {
        this.holds = holds;
    }

    /**
     * Sends one acquire attempt for the hold and keeps the books around it: in flight from before the send until
     * {@code onReply} has recorded the outcome (so that a concurrent attempt of the owner never misses this
     * acquisition), then answered, or unanswered when it failed for want of Redis (it may have run).
     *
     * @param send    sends the attempt with the count this client knows for the hold (may throw)
     * @param onReply records the reply, returns the attempt's result (null = acquired, else the PTTL)
     */
    public <T> CompletableFuture<Long> track(HoldId id, Function<Long, CompletableFuture<T>> send,
                                      Function<T, Long> onReply) {
        return trackAll(List.of(id), known -> send.apply(known[0]), onReply);
    }

    /**
     * {@link #track} for one attempt that takes several holds at once (a multi-lock's members in one script): each
     * hold is in flight, then answered or unanswered, together.
     *
     * @param send sends the attempt with the counts this client knows, in the order of {@code ids}
     */
    public <T> CompletableFuture<Long> trackAll(List<HoldId> ids, Function<long[], CompletableFuture<T>> send,
                                         Function<T, Long> onReply) {
        long[] known = new long[ids.size()];
        for (int i = 0; i < known.length; i++) {
            known[i] = holds.knownCount(ids.get(i));
            holds.attemptStarted(ids.get(i));
        }
        CompletableFuture<T> reply = Errors.call(() -> send.apply(known));
        return reply.handle((value, error) -> {
            Long result = null;
            try {
                if (error == null) {
                    result = onReply.apply(value);
                }
            } finally {
                boolean answered = error == null || !Errors.isUnavailable(error);
                ids.forEach(id -> holds.attemptEnded(id, answered));
            }
            if (error != null) {
                throw new CompletionException(Errors.unwrap(error));
            }
            return result;
        });
    }

    /**
     * The acquisition gave up (timeout, interrupt, cancellation, failure): if its last attempt ended unanswered, it may
     * have taken a hold nobody knows of, which would otherwise outlive the wait by its whole lease, so {@code drop}
     * brings the owner's count in Redis down to what the client knows (nothing when the attempt did not run), and the
     * hold is settled once Redis answered. Best effort: a failure is left to the hold's lease; never fails.
     */
    public CompletableFuture<Void> dropIfUnanswered(HoldId id, DropScript drop) {
        if (!holds.unanswered(id)) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Long> reply = Errors.call(() -> drop.send(holds.currentLease(id), holds.knownCount(id)));
        return reply.handle((dropped, error) -> {
            if (error == null) {
                holds.settled(id);
            }
            return null;
        });
    }
}
