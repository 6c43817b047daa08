package io.dlock.internal.semaphore;

import io.dlock.LockException;
import io.dlock.NotALockException;
import io.dlock.internal.Errors;
import io.lettuce.core.RedisCommandExecutionException;

import java.util.concurrent.CancellationException;

/**
 * Maps failures of semaphore calls to the API's exceptions, naming the semaphore: the API's own exceptions pass
 * unchanged; a key of the wrong type (the scripts' {@code WRONGTYPE dlock:} / {@code DLOCK_NOT_A_SEMAPHORE} refusals,
 * or Redis's own {@code WRONGTYPE}) becomes {@link NotALockException}; anything else {@link LockException}.
 */
final class SemaphoreErrors {
    private static final String[] REFUSALS = {"WRONGTYPE dlock: ", "DLOCK_NOT_A_SEMAPHORE dlock: "};

    private SemaphoreErrors() {
    }

    static RuntimeException toApi(Throwable error, String kind, String name, String operation) {
        Throwable t = Errors.unwrap(error);
        if (t instanceof LockException || t instanceof IllegalArgumentException || t instanceof IllegalStateException
                || t instanceof NullPointerException || t instanceof CancellationException) {
            return (RuntimeException) t;
        }
        String what = kind + " '" + name + "': ";
        if (t instanceof RedisCommandExecutionException && t.getMessage() != null) {
            String message = t.getMessage();
            for (String code : REFUSALS) {
                int at = message.indexOf(code);
                if (at >= 0) {
                    return new NotALockException(name, what + operation + " refused: "
                            + message.substring(at + code.length()), t);
                }
            }
            if (message.startsWith("WRONGTYPE")) {
                return new NotALockException(name, what + operation + " refused: the key holds another type, "
                        + "not a semaphore", t);
            }
        }
        return new LockException(name, what + operation + " failed: " + t, t);
    }
}
