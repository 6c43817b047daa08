package io.dlock.internal.lock;

import io.dlock.internal.Errors;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Acquire attempts of this client whose outcome is not known yet, per hold ({@code key}, {@code field}): those still
 * awaiting their reply, and whether the last one of a hold ended without a reply (a command timeout, a cut connection:
 * it may have run in Redis all the same).
 *
 * <p>With {@link io.dlock.internal.lease.Hold#acquisitions()} this gives the count the client knows for an owner,
 * which the scripts of the reentrant (and fenced) lock reconcile with Redis's: an acquisition that finds more than
 * that adopts the one a lost reply left behind instead of counting on top of it, a release brings the count to what
 * the client knows, and a wait given up after a reply-less attempt drops what that attempt may have left.
 *
 * <p>Thread-safe, lock-free.
 */
final class PendingAcquisitions {
    private final ConcurrentHashMap<String, Integer> inFlight = new ConcurrentHashMap<>();
    private final Set<String> unanswered = ConcurrentHashMap.newKeySet();

    private static String id(String key, String field) {
        return key + '\n' + field;
    }

    /**
     * Sends one acquire attempt for the hold and keeps the books around it: in flight from before the send until
     * {@code onReply} has recorded the outcome (so that a concurrent attempt of the owner never misses this
     * acquisition), then answered, or unanswered when it failed for want of Redis (it may have run).
     *
     * @param send    sends the attempt (may throw)
     * @param onReply records the reply, returns the attempt's result (null = acquired, else the PTTL)
     */
    <T> CompletableFuture<Long> track(String key, String field, Supplier<CompletableFuture<T>> send,
                                      Function<T, Long> onReply) {
        started(key, field);
        CompletableFuture<T> reply;
        try {
            reply = send.get();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((value, error) -> {
            Long result = null;
            try {
                if (error == null) {
                    result = onReply.apply(value);
                }
            } finally {
                ended(key, field, error == null || !Errors.isUnavailable(error));
            }
            if (error != null) {
                throw new CompletionException(Errors.unwrap(error));
            }
            return result;
        });
    }

    /** An attempt for the hold is being sent. */
    void started(String key, String field) {
        inFlight.merge(id(key, field), 1, Integer::sum);
    }

    /**
     * The attempt's reply arrived (and, if it acquired, the hold was recorded first), or it failed.
     *
     * @param answered false when it failed without an answer from Redis (it may have run)
     */
    void ended(String key, String field, boolean answered) {
        String id = id(key, field);
        if (answered) {
            unanswered.remove(id);
        } else {
            unanswered.add(id);
        }
        inFlight.computeIfPresent(id, (k, n) -> n == 1 ? null : n - 1);
    }

    /**
     * A script that may have given the hold a count (a hand-off to this owner) failed without an answer: the owner's
     * give-up drops what it may have left, and its next attempt adopts it, as after an unanswered attempt.
     */
    void mayHaveRun(String key, String field) {
        unanswered.add(id(key, field));
    }

    /** @return attempts for the hold still awaiting their reply */
    int inFlight(String key, String field) {
        return inFlight.getOrDefault(id(key, field), 0);
    }

    /** @return whether the hold's last attempt ended without an answer and nothing answered since */
    boolean unanswered(String key, String field) {
        return unanswered.contains(id(key, field));
    }

    /** What the last unanswered attempt may have left was dealt with (dropped, or adopted by a later attempt). */
    void settled(String key, String field) {
        unanswered.remove(id(key, field));
    }

    /**
     * Sends {@code drop}, a release script in "drop-unknown" mode that brings the owner's count down to what the client
     * knows, and marks the hold settled once Redis answered. Best effort: a failure is left to the hold's lease, and the
     * returned future never fails.
     */
    CompletableFuture<Void> dropUnknown(String key, String field, Supplier<CompletableFuture<Long>> drop) {
        CompletableFuture<Long> reply;
        try {
            reply = drop.get();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((dropped, error) -> {
            if (error == null) {
                settled(key, field);
            }
            return null;
        });
    }
}
