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

    /**
     * Exceptions of the API contract ({@link IllegalMonitorStateException}, {@link IllegalArgumentException},
     * {@link LockException}, cancellation) pass unchanged; a script's refusal to touch a key that is not a lock
     * becomes a {@link NotALockException}; other Redis and transport failures become a {@link LockException} naming
     * the lock, the operation and the Redis error.
     */
    public static RuntimeException toApi(Throwable error, String lockName, String operation) {
        Throwable t = unwrap(error);
        if (t instanceof LockException || t instanceof IllegalMonitorStateException
                || t instanceof IllegalArgumentException || t instanceof NullPointerException
                || t instanceof CancellationException || t instanceof UnsupportedOperationException) {
            return (RuntimeException) t;
        }
        String refusal = notALockRefusal(t);
        if (refusal != null) {
            return new NotALockException(lockName, "lock '" + lockName + "': " + operation + " refused: " + refusal,
                    t);
        }
        return new LockException(lockName, "lock '" + lockName + "': " + operation + " failed: " + describe(t), t);
    }

    /** The error codes with which the scripts refuse a key that is not a lock (the fragment {@code not_a_lock}). */
    private static final String[] NOT_A_LOCK_CODES = {"WRONGTYPE dlock: ", "DLOCK_NOT_A_LOCK dlock: "};

    /**
     * @return the text after the code of a script's "not a lock" refusal ({@code "the key holds a hash that is not a
     *         lock; nothing was changed"}), or null when {@code t} is no such refusal
     */
    static String notALockRefusal(Throwable t) {
        if (t instanceof RedisCommandExecutionException && t.getMessage() != null) {
            for (String code : NOT_A_LOCK_CODES) {
                int at = t.getMessage().indexOf(code);
                if (at >= 0) {
                    return t.getMessage().substring(at + code.length());
                }
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

    static String describe(Throwable t) {
        if (t instanceof RedisCommandTimeoutException) {
            return "Redis did not answer in time (" + t.getMessage() + ")";
        }
        if (t instanceof RedisConnectionException) {
            return "Redis unreachable (" + t.getMessage() + ")";
        }
        if (t instanceof RedisCommandExecutionException) {
            return "Redis error: " + t.getMessage();
        }
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /**
     * @return {@code "; TLS handshake failed (<message>)"} when a TLS failure is among the causes, else
     *         {@code "; <message>"} of the innermost cause (such as "Connection refused"), or "" when there is none
     */
    static String rootCause(Throwable e) {
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
