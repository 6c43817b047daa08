package io.dlock.internal;

import io.dlock.LockException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns what Redis and Lettuce throw into the exceptions of the public API. */
public final class Errors {
    private Errors() {
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
     * {@link LockException}, cancellation) pass unchanged; Redis and transport failures become a
     * {@link LockException} naming the lock, the operation and the Redis error.
     */
    public static RuntimeException toApi(Throwable error, String lockName, String operation) {
        Throwable t = unwrap(error);
        if (t instanceof LockException || t instanceof IllegalMonitorStateException
                || t instanceof IllegalArgumentException || t instanceof NullPointerException
                || t instanceof CancellationException || t instanceof UnsupportedOperationException) {
            return (RuntimeException) t;
        }
        return new LockException("lock '" + lockName + "': " + operation + " failed: " + describe(t), t);
    }

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
}
