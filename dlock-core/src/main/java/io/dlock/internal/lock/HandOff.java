package io.dlock.internal.lock;

import io.dlock.internal.script.ScriptCall;

import java.util.List;

/**
 * A kind's hand-off at release, described: which local waiters it is sent for, what it tells the script of each, the
 * call and how its reply reads. {@link HandOffRelease} sends it and keeps every book around it.
 */
interface HandOff {
    /** @return which local waiters the hand-off is sent for */
    default LocalLine.Pick pick() {
        return LocalLine.Pick.FIRST;
    }

    /**
     * @param leaseMs the waiter's lease in ms, the watchdog timeout for a watchdog lease
     * @return what the script is told of {@code waiter} and how its hold is recorded
     */
    Receiver receiver(LocalWaiter waiter, long leaseMs);

    /** @return the hand-off call for the releasing owner and these receivers, in the cohort's order */
    ScriptCall call(List<Receiver> receivers);

    /** @return what the call did, read from its reply */
    HandOffRelease.Outcome read(Long reply);

    /**
     * A waiter the lock may be handed to: its field, lease in ms, and how its hold is recorded (kind, renewal) and what
     * waiting mark the hand-off removed in Redis; {@code thread} names the thread that asked, for a hold record
     * ({@link HoldRecord}; empty when unknown).
     */
    record Receiver(String field, long leaseMs, LockProtocol grantedAs, String thread) {
        Receiver(String field, long leaseMs, LockProtocol grantedAs) {
            this(field, leaseMs, grantedAs, "");
        }
    }
}
