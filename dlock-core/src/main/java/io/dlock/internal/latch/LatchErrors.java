package io.dlock.internal.latch;

import io.dlock.LockException;
import io.dlock.internal.Errors;
import io.lettuce.core.RedisCommandExecutionException;

import java.util.concurrent.CancellationException;

/** Turns what a latch's scripts and Redis throw into the API's exceptions, naming the latch. */
final class LatchErrors {
    /** The code with which the scripts refuse a key that is not a latch (the fragment {@code latch_count}). */
    private static final String NOT_A_LATCH = "DLOCK_NOT_A_LATCH dlock: ";

    private LatchErrors() {
    }

    static String describe(String name) {
        return "count-down latch '" + name + "'";
    }

    /**
     * The API's exceptions pass unchanged; a script's refusal becomes a {@link LockException} saying what the key
     * holds; any other failure becomes a {@link LockException} naming the latch, the operation and the Redis error.
     */
    static RuntimeException toApi(Throwable error, String name, String operation) {
        Throwable t = Errors.unwrap(error);
        if (t instanceof LockException || t instanceof IllegalArgumentException || t instanceof NullPointerException
                || t instanceof CancellationException) {
            return (RuntimeException) t;
        }
        if (t instanceof RedisCommandExecutionException && t.getMessage() != null) {
            String message = t.getMessage();
            int at = message.indexOf(NOT_A_LATCH);
            if (at >= 0) {
                return new LockException(name, describe(name) + ": " + operation + " refused: "
                        + message.substring(at + NOT_A_LATCH.length()), t);
            }
            if (message.startsWith("WRONGTYPE")) {
                return new LockException(name, describe(name) + ": " + operation + " refused: the key is not a "
                        + "count-down latch (" + message + ")", t);
            }
        }
        return new LockException(name, describe(name) + ": " + operation + " failed: "
                + t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage()), t);
    }

    /** @return whether {@code t} is a script's or Redis's refusal of a key that is not a latch */
    static boolean isRefusal(Throwable t) {
        return t instanceof RedisCommandExecutionException && t.getMessage() != null
                && (t.getMessage().contains(NOT_A_LATCH) || t.getMessage().startsWith("WRONGTYPE"));
    }

    static LockException closed(String name) {
        return new LockException(name, describe(name) + ": the lock client is closed", null);
    }
}
