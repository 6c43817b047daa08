package io.dlock.internal;

import io.dlock.LockException;
import io.dlock.NotALockException;
import io.dlock.ReplicasNotSyncedException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/** Turns what Redis and Lettuce throw into the exceptions of the public API. */
public final class Errors {
    private Errors() {
    }

    /**
     * Calls {@code send}, turning a synchronous throw (a closed connection, a bad argument) into a failed future, so
     * that callers handle every failure in one place, on the future.
     */
    public static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> send) {
        try {
            return send.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Strips the {@link CompletionException}/{@link ExecutionException} wrappers of futures. */
    public static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** {@link #toApi(Throwable, String, String, String)} for a lock. */
    public static RuntimeException toApi(Throwable error, String lockName, String operation) {
        return toApi(error, "lock", lockName, operation);
    }

    /**
     * The one error mapper of every kind (locks, semaphores, latches, multi-locks). Exceptions of the API contract
     * ({@link IllegalMonitorStateException}, {@link IllegalArgumentException}, {@link IllegalStateException},
     * {@link LockException}, cancellation) pass unchanged; a script's refusal to touch a key that is not of the kind
     * (the {@code WRONGTYPE dlock:} and {@code DLOCK_NOT_A_…} codes of the fragments {@code wrong_type},
     * {@code not_a_lock}, {@code permit_count}, {@code latch_count}, which every script checks its object's key with
     * before it writes) becomes a {@link NotALockException} naming the type; a change refused for its range
     * ({@code DLOCK_OUT_OF_RANGE}) an {@link IllegalArgumentException}; other Redis and transport failures, Redis's
     * own {@code WRONGTYPE} included (it names no key, and may concern an auxiliary key of the object), a
     * {@link LockException}. Each message starts with the kind and the name
     * ({@code semaphore 'cart': acquire failed: …}).
     *
     * @param kind what the object is, as messages name it: "lock", "semaphore", "count-down latch", …
     */
    public static RuntimeException toApi(Throwable error, String kind, String name, String operation) {
        Throwable t = unwrap(error);
        if (t instanceof LockException || t instanceof IllegalMonitorStateException
                || t instanceof IllegalArgumentException || t instanceof IllegalStateException
                || t instanceof NullPointerException || t instanceof CancellationException
                || t instanceof UnsupportedOperationException) {
            return (RuntimeException) t;
        }
        String what = kind + " '" + name + "': ";
        String outOfRange = codeText(t, OUT_OF_RANGE);
        if (outOfRange != null) {
            return new IllegalArgumentException(what + operation + " refused: " + outOfRange, t);
        }
        String refusal = notALockRefusal(t);
        if (refusal != null) {
            return new NotALockException(name, what + operation + " refused: " + refusal, t);
        }
        return new LockException(name, what + operation + " failed: " + describe(t), t);
    }

    /** The error codes with which the scripts refuse a key that is not of their kind. */
    private static final String[] NOT_A_LOCK_CODES = {"WRONGTYPE dlock: ", "DLOCK_NOT_A_LOCK dlock: ",
            "DLOCK_NOT_A_SEMAPHORE dlock: ", "DLOCK_NOT_A_LATCH dlock: "};

    /** The error code with which the scripts refuse a change that takes a count out of its range. */
    private static final String OUT_OF_RANGE = "DLOCK_OUT_OF_RANGE dlock: ";

    private static String codeText(Throwable t, String code) {
        if (t instanceof RedisCommandExecutionException && t.getMessage() != null) {
            int at = t.getMessage().indexOf(code);
            if (at >= 0) {
                return t.getMessage().substring(at + code.length());
            }
        }
        return null;
    }

    /**
     * @return the text after the code of a script's "not a lock" refusal ({@code "the key holds a hash that is not a
     *         lock; nothing was changed"}), or null when {@code t} is no such refusal
     */
    static String notALockRefusal(Throwable t) {
        for (String code : NOT_A_LOCK_CODES) {
            String text = codeText(t, code);
            if (text != null) {
                return text;
            }
        }
        return null;
    }

    /**
     * Whether {@code error} says that Redis is (for now) unable to serve, rather than that the request was wrong: the
     * connection is down or refused, a command timed out, a failover or cluster reconfiguration is under way
     * ({@code READONLY}, {@code CLUSTERDOWN}, {@code TRYAGAIN}, {@code MASTERDOWN}, {@code LOADING}, {@code BUSY}), or
     * too few replicas confirmed an acquisition ({@link ReplicasNotSyncedException}). Such failures may pass by
     * themselves; {@code WRONGTYPE}, script errors and the API's own exceptions never do.
     */
    public static boolean isUnavailable(Throwable error) {
        Throwable t = unwrap(error);
        if (t instanceof LockException && !(t instanceof ReplicasNotSyncedException) && t.getCause() != null) {
            t = unwrap(t.getCause());
        }
        if (t instanceof ReplicasNotSyncedException || t instanceof RedisConnectionException
                || t instanceof RedisCommandTimeoutException || t instanceof java.net.ConnectException
                || t instanceof java.io.IOException) {
            return true;
        }
        if (t instanceof RedisCommandExecutionException) {
            String message = String.valueOf(t.getMessage());
            for (String code : TRANSIENT_ERROR_CODES) {
                // the reply itself, or a script's call that got it ("ERR … -READONLY You can't write …")
                if (message.startsWith(code + " ") || message.contains("-" + code + " ")) {
                    return true;
                }
            }
            return false;
        }
        if (t instanceof io.lettuce.core.RedisException && !(t instanceof RedisCommandExecutionException)) {
            // "Connection closed", "Currently not connected", "Cannot determine a partition", …
            return true;
        }
        return false;
    }

    /** Error codes of replies that a failover, a resharding or a busy server cause, and that pass by themselves. */
    private static final String[] TRANSIENT_ERROR_CODES = {"READONLY", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN",
            "LOADING", "BUSY"};

    public static String describe(Throwable t) {
        if (t instanceof RedisCommandTimeoutException) {
            return "Redis did not answer in time (" + t.getMessage() + ")";
        }
        if (t instanceof RedisConnectionException) {
            return "Redis unreachable (" + t.getMessage() + ")";
        }
        if (t instanceof RedisCommandExecutionException) {
            return "Redis error: " + t.getMessage() + aclHint(t.getMessage());
        }
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /**
     * What an ACL refusal inside a script means for a dlock object, where the server's text does not say it: Redis
     * 7.0 names the command ("can't publish to the channel mentioned in the command"), while Redis 7.2 and later and
     * Valkey say "ACL failure in script: No permissions to access a channel" (or "a key"). A dlock script touches
     * channels only to publish its wake-ups, so the channel case is a missing channel pattern in the user's rule.
     *
     * @return the hint, starting with a space, or "" for any other message
     */
    static String aclHint(String message) {
        if (message == null) {
            return "";
        }
        if (message.contains("No permissions to access a channel")) {
            return " (the Redis user may not publish on this object's channel: its ACL rule lacks the channel's "
                    + "pattern; see the README, \"Redis ACL\")";
        }
        if (message.contains("No permissions to access a key")) {
            return " (the Redis user may not use one of this object's keys: its ACL rule lacks the key's pattern; see "
                    + "the README, \"Redis ACL\")";
        }
        return "";
    }

    /**
     * @return {@code "; TLS handshake failed (<message>)"} when a TLS failure is among the causes, else
     *         {@code "; <message>"} of the innermost cause (such as "Connection refused"), or "" when there is none
     */
    public static String rootCause(Throwable e) {
        Throwable outer = Errors.unwrap(e);
        Throwable root = outer;
        for (Throwable t = outer; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException) {
                return "; TLS handshake failed (" + t.getMessage() + ")";
            }
            root = t;
        }
        return root == outer || root.getMessage() == null ? "" : "; " + root.getMessage();
    }
}
