package io.dlock.spring;

import io.dlock.LeaderTerm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@link LeaderOnly} calls in progress in one term, so that the term's end reaches them: {@link #close} (run by
 * the election's task when the term is revoked, before the lock is released) lets no call in any more, interrupts the
 * threads of those inside and waits for them to leave.
 *
 * <p>Invariant: a call's thread is interrupted by the gate only between its {@link #enter()} and its
 * {@link Call#leave()} (both under the gate's monitor), and {@code leave()} clears the flag the gate set, so the
 * term's end never reaches the thread's next task. Thread-safe.
 */
final class TermGate {
    private final LeaderTerm term;
    /** Guarded by this. */
    private final List<Call> inside = new ArrayList<>();
    /** Guarded by this. */
    private boolean closed;

    TermGate(LeaderTerm term) {
        this.term = term;
    }

    LeaderTerm term() {
        return term;
    }

    /** @return whether {@code thread} is inside the gate (a {@link LeaderOnly} call of the term runs on it) */
    synchronized boolean isInside(Thread thread) {
        for (Call call : inside) {
            if (call.thread == thread) {
                return true;
            }
        }
        return false;
    }

    /** @return the calling thread's entry, to {@linkplain Call#leave() leave} in a finally, or null once closed */
    synchronized Call enter() {
        if (closed) {
            return null;
        }
        Call call = new Call(Thread.currentThread());
        inside.add(call);
        return call;
    }

    /**
     * Lets no call in any more, interrupts the calls inside, and waits until they have left or {@code timeout} has
     * passed. An interrupt of the waiting thread ends the wait early; its flag is set again.
     *
     * @return whether every call has left
     */
    boolean close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        synchronized (this) {
            closed = true;
            for (Call call : inside) {
                call.interrupted = true;
                call.thread.interrupt();
            }
            try {
                while (!inside.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return inside.isEmpty();
        }
    }

    /** One call inside the gate. */
    final class Call {
        private final Thread thread;
        /** Whether the gate interrupted {@link #thread} for this call. Guarded by the gate. */
        private boolean interrupted;

        private Call(Thread thread) {
            this.thread = thread;
        }

        /** @return the gate's term */
        LeaderTerm term() {
            return term;
        }

        /** Leaves the gate, on the thread that entered; clears the interrupt flag when the gate set it. */
        void leave() {
            synchronized (TermGate.this) {
                inside.remove(this);
                if (interrupted) {
                    Thread.interrupted();
                }
                TermGate.this.notifyAll();
            }
        }
    }
}
