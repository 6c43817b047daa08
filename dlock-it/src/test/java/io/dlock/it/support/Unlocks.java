package io.dlock.it.support;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.dlock.DistributedLock;
import io.dlock.LockException;
import io.dlock.redisprocess.Await;

/** Unlocks retried only while Redis cannot answer, with the answer handed back for the test to assert on. */
public final class Unlocks {

    /** What {@link DistributedLock#unlock()} returned normally with (the test decides whether that was right). */
    public static final String RETURNED = "unlock() returned normally";

    private Unlocks() {
    }

    /**
     * Calls {@code lock.unlock()} every poll until it no longer fails with a {@link LockException} (Redis not back
     * yet, client reconnecting), and returns what the first other outcome was: {@link #RETURNED} when it succeeded,
     * else the exception it threw. The caller asserts on it, outside the wait, so an unlock that must not succeed
     * makes the test fail.
     *
     * @throws IllegalStateException when every call within {@code timeout} failed with a {@link LockException}
     */
    public static Object outcomeOnceRedisAnswers(DistributedLock lock, Duration timeout) {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Await.until(timeout, () -> {
            try {
                lock.unlock();
                outcome.set(RETURNED);
            } catch (LockException notYet) {
                return false;
            } catch (RuntimeException answered) {
                outcome.set(answered);
            }
            return true;
        }, () -> "unlock() of " + lock.getName() + " still fails with LockException (Redis not answering)");
        return outcome.get();
    }
}
