package io.dlock.internal.events;

import io.dlock.LeaderTerm;
import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.LockKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link LockEventListener}s of one client, and the one object the lock code reports to: {@link #get()} is
 * {@link #NONE} while nobody listens, one guarded listener, or a fan-out to several, rebuilt on every change. Reporting
 * an event costs one volatile read, and with no listener nothing more: {@code NONE}'s
 * {@code acquisitionStarted} (and {@code permitAcquisitionStarted}, {@code latchAwaitStarted}) returns
 * {@link LockEventListener.Acquisition#IGNORED}, which callers compare against to skip the bookkeeping of a followed
 * acquisition altogether.
 *
 * <p>Every listener is wrapped so that what it throws is logged and never reaches the lock code or the other
 * listeners (a {@link VirtualMachineError} excepted). Thread-safe.
 */
public final class EventSink {
    private static final Logger log = LoggerFactory.getLogger(EventSink.class);

    /** Reports nothing. */
    public static final LockEventListener NONE = new LockEventListener() {
        @Override
        public String toString() {
            return "EventSink.NONE";
        }
    };

    /** Guarded by {@code this}; a listener added twice is in it twice (as the client's lease-lost listeners). */
    private final List<Guarded> listeners = new ArrayList<>();
    private volatile LockEventListener current = NONE;

    /** @return what to report to now; {@link #NONE} when nobody listens */
    public LockEventListener get() {
        return current;
    }

    /** Adds {@code listener}; it hears the events that happen from now on. */
    public synchronized void add(LockEventListener listener) {
        listeners.add(new Guarded(Objects.requireNonNull(listener, "listener")));
        current = compose();
    }

    /** Removes one registration of {@code listener}; no effect if it has none. */
    public synchronized void remove(LockEventListener listener) {
        for (int i = 0; i < listeners.size(); i++) {
            if (listeners.get(i).delegate == listener) {
                listeners.remove(i);
                current = compose();
                return;
            }
        }
    }

    private LockEventListener compose() {
        return switch (listeners.size()) {
            case 0 -> NONE;
            case 1 -> listeners.get(0);
            default -> new Fanout(listeners.toArray(new Guarded[0]));
        };
    }

    /**
     * Reports the end of {@code acquisition} (of a lock, of permits, or a latch await) from its internal result:
     * acquired or opened ({@code true}), out of time ({@code false}), or the error (a {@link CancellationException}
     * when the caller gave up).
     */
    public static void ended(LockEventListener.Acquisition acquisition, Boolean acquired, Throwable error) {
        Throwable cause = cause(error);
        LockEventListener.Outcome outcome = outcome(acquired, cause);
        acquisition.ended(outcome, outcome == LockEventListener.Outcome.FAILED ? cause : null);
    }

    /** @return the outcome of an acquisition or await whose internal result is {@code acquired} or {@code error} */
    public static LockEventListener.Outcome outcome(Boolean acquired, Throwable error) {
        Throwable cause = cause(error);
        return cause == null ? (Boolean.TRUE.equals(acquired) ? LockEventListener.Outcome.ACQUIRED
                : LockEventListener.Outcome.TIMED_OUT)
                : cause instanceof CancellationException ? LockEventListener.Outcome.INTERRUPTED
                : LockEventListener.Outcome.FAILED;
    }

    /** @return {@code error} without its {@link CompletionException} and {@link ExecutionException} wrappers */
    private static Throwable cause(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** One listener, its failures caught and logged (the first at WARN, later ones at DEBUG). */
    private static final class Guarded implements LockEventListener {
        final LockEventListener delegate;
        private final AtomicBoolean warned = new AtomicBoolean();

        Guarded(LockEventListener delegate) {
            this.delegate = delegate;
        }

        void failed(String event, Throwable error) {
            if (error instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            if (warned.compareAndSet(false, true)) {
                log.warn("LockEventListener {} failed in {} (its further failures are logged at DEBUG)", delegate,
                        event, error);
            } else {
                log.debug("LockEventListener {} failed in {}", delegate, event, error);
            }
        }

        @Override
        public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
            Acquisition acquisition;
            try {
                acquisition = delegate.acquisitionStarted(kind, lockName, ownerId);
            } catch (Throwable e) {
                failed("acquisitionStarted", e);
                return Acquisition.IGNORED;
            }
            return guarded(acquisition);
        }

        @Override
        public Acquisition permitAcquisitionStarted(String semaphoreName, boolean leased) {
            Acquisition acquisition;
            try {
                acquisition = delegate.permitAcquisitionStarted(semaphoreName, leased);
            } catch (Throwable e) {
                failed("permitAcquisitionStarted", e);
                return Acquisition.IGNORED;
            }
            return guarded(acquisition);
        }

        @Override
        public Acquisition latchAwaitStarted(String latchName) {
            Acquisition acquisition;
            try {
                acquisition = delegate.latchAwaitStarted(latchName);
            } catch (Throwable e) {
                failed("latchAwaitStarted", e);
                return Acquisition.IGNORED;
            }
            return guarded(acquisition);
        }

        /** @return {@code acquisition}, returned by the delegate, guarded; {@code IGNORED} for none */
        private Acquisition guarded(Acquisition acquisition) {
            return acquisition == null || acquisition == Acquisition.IGNORED ? Acquisition.IGNORED
                    : new GuardedAcquisition(this, acquisition);
        }

        @Override
        public void handedOff(Hold receiver) {
            try {
                delegate.handedOff(receiver);
            } catch (Throwable e) {
                failed("handedOff", e);
            }
        }

        @Override
        public void holdReleased(Hold hold) {
            try {
                delegate.holdReleased(hold);
            } catch (Throwable e) {
                failed("holdReleased", e);
            }
        }

        @Override
        public void holdLost(Hold hold, LeaseLostEvent.Reason reason) {
            try {
                delegate.holdLost(hold, reason);
            } catch (Throwable e) {
                failed("holdLost", e);
            }
        }

        @Override
        public void holdDiscarded(Hold hold) {
            try {
                delegate.holdDiscarded(hold);
            } catch (Throwable e) {
                failed("holdDiscarded", e);
            }
        }

        @Override
        public void renewalCall(boolean ok) {
            try {
                delegate.renewalCall(ok);
            } catch (Throwable e) {
                failed("renewalCall", e);
            }
        }

        @Override
        public void holdRenewed(Hold hold, boolean ok) {
            try {
                delegate.holdRenewed(hold, ok);
            } catch (Throwable e) {
                failed("holdRenewed", e);
            }
        }

        @Override
        public void permitGranted(String semaphoreName, String permitId) {
            try {
                delegate.permitGranted(semaphoreName, permitId);
            } catch (Throwable e) {
                failed("permitGranted", e);
            }
        }

        @Override
        public void permitAcquisitionEnded(String semaphoreName, boolean leased, Outcome outcome, long waitNanos) {
            try {
                delegate.permitAcquisitionEnded(semaphoreName, leased, outcome, waitNanos);
            } catch (Throwable e) {
                failed("permitAcquisitionEnded", e);
            }
        }

        @Override
        public void permitReleased(String semaphoreName, String permitId) {
            try {
                delegate.permitReleased(semaphoreName, permitId);
            } catch (Throwable e) {
                failed("permitReleased", e);
            }
        }

        @Override
        public void permitLost(String semaphoreName, String permitId, LeaseLostEvent.Reason reason) {
            try {
                delegate.permitLost(semaphoreName, permitId, reason);
            } catch (Throwable e) {
                failed("permitLost", e);
            }
        }

        @Override
        public void latchAwaitEnded(String latchName, Outcome outcome, long waitNanos) {
            try {
                delegate.latchAwaitEnded(latchName, outcome, waitNanos);
            } catch (Throwable e) {
                failed("latchAwaitEnded", e);
            }
        }

        @Override
        public void latchCountedDown(String latchName) {
            try {
                delegate.latchCountedDown(latchName);
            } catch (Throwable e) {
                failed("latchCountedDown", e);
            }
        }

        @Override
        public void leaderElected(String electionName, long epoch) {
            try {
                delegate.leaderElected(electionName, epoch);
            } catch (Throwable e) {
                failed("leaderElected", e);
            }
        }

        @Override
        public void leaderRevoked(String electionName, long epoch, LeaderTerm.Cause cause, long termNanos) {
            try {
                delegate.leaderRevoked(electionName, epoch, cause, termNanos);
            } catch (Throwable e) {
                failed("leaderRevoked", e);
            }
        }

        @Override
        public void leaderRenewed(String electionName, boolean ok) {
            try {
                delegate.leaderRenewed(electionName, ok);
            } catch (Throwable e) {
                failed("leaderRenewed", e);
            }
        }
    }

    /** An acquisition a guarded listener follows, its failures caught and logged as the listener's. */
    private record GuardedAcquisition(Guarded owner, LockEventListener.Acquisition delegate)
            implements LockEventListener.Acquisition {
        @Override
        public void attempted() {
            try {
                delegate.attempted();
            } catch (Throwable e) {
                owner.failed("Acquisition.attempted", e);
            }
        }

        @Override
        public void granted(LockEventListener.Hold hold) {
            try {
                delegate.granted(hold);
            } catch (Throwable e) {
                owner.failed("Acquisition.granted", e);
            }
        }

        @Override
        public void ended(LockEventListener.Outcome outcome, Throwable failure) {
            try {
                delegate.ended(outcome, failure);
            } catch (Throwable e) {
                owner.failed("Acquisition.ended", e);
            }
        }
    }

    /** Several listeners, told in the order they were added. */
    private record Fanout(Guarded[] all) implements LockEventListener {
        @Override
        public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
            Acquisition[] followed = new Acquisition[all.length];
            int n = 0;
            for (Guarded listener : all) {
                Acquisition acquisition = listener.acquisitionStarted(kind, lockName, ownerId);
                if (acquisition != Acquisition.IGNORED) {
                    followed[n++] = acquisition;
                }
            }
            return followedBy(followed, n);
        }

        @Override
        public Acquisition permitAcquisitionStarted(String semaphoreName, boolean leased) {
            Acquisition[] followed = new Acquisition[all.length];
            int n = 0;
            for (Guarded listener : all) {
                Acquisition acquisition = listener.permitAcquisitionStarted(semaphoreName, leased);
                if (acquisition != Acquisition.IGNORED) {
                    followed[n++] = acquisition;
                }
            }
            return followedBy(followed, n);
        }

        @Override
        public Acquisition latchAwaitStarted(String latchName) {
            Acquisition[] followed = new Acquisition[all.length];
            int n = 0;
            for (Guarded listener : all) {
                Acquisition acquisition = listener.latchAwaitStarted(latchName);
                if (acquisition != Acquisition.IGNORED) {
                    followed[n++] = acquisition;
                }
            }
            return followedBy(followed, n);
        }

        /** @return one acquisition telling the first {@code n} of {@code followed}; {@code IGNORED} for none */
        private static Acquisition followedBy(Acquisition[] followed, int n) {
            return n == 0 ? Acquisition.IGNORED : n == 1 ? followed[0] : new FanoutAcquisition(followed, n);
        }

        @Override
        public void handedOff(Hold receiver) {
            for (Guarded listener : all) {
                listener.handedOff(receiver);
            }
        }

        @Override
        public void holdReleased(Hold hold) {
            for (Guarded listener : all) {
                listener.holdReleased(hold);
            }
        }

        @Override
        public void holdLost(Hold hold, LeaseLostEvent.Reason reason) {
            for (Guarded listener : all) {
                listener.holdLost(hold, reason);
            }
        }

        @Override
        public void holdDiscarded(Hold hold) {
            for (Guarded listener : all) {
                listener.holdDiscarded(hold);
            }
        }

        @Override
        public void renewalCall(boolean ok) {
            for (Guarded listener : all) {
                listener.renewalCall(ok);
            }
        }

        @Override
        public void holdRenewed(Hold hold, boolean ok) {
            for (Guarded listener : all) {
                listener.holdRenewed(hold, ok);
            }
        }

        @Override
        public void permitGranted(String semaphoreName, String permitId) {
            for (Guarded listener : all) {
                listener.permitGranted(semaphoreName, permitId);
            }
        }

        @Override
        public void permitAcquisitionEnded(String semaphoreName, boolean leased, Outcome outcome, long waitNanos) {
            for (Guarded listener : all) {
                listener.permitAcquisitionEnded(semaphoreName, leased, outcome, waitNanos);
            }
        }

        @Override
        public void permitReleased(String semaphoreName, String permitId) {
            for (Guarded listener : all) {
                listener.permitReleased(semaphoreName, permitId);
            }
        }

        @Override
        public void permitLost(String semaphoreName, String permitId, LeaseLostEvent.Reason reason) {
            for (Guarded listener : all) {
                listener.permitLost(semaphoreName, permitId, reason);
            }
        }

        @Override
        public void latchAwaitEnded(String latchName, Outcome outcome, long waitNanos) {
            for (Guarded listener : all) {
                listener.latchAwaitEnded(latchName, outcome, waitNanos);
            }
        }

        @Override
        public void latchCountedDown(String latchName) {
            for (Guarded listener : all) {
                listener.latchCountedDown(latchName);
            }
        }

        @Override
        public void leaderElected(String electionName, long epoch) {
            for (Guarded listener : all) {
                listener.leaderElected(electionName, epoch);
            }
        }

        @Override
        public void leaderRevoked(String electionName, long epoch, LeaderTerm.Cause cause, long termNanos) {
            for (Guarded listener : all) {
                listener.leaderRevoked(electionName, epoch, cause, termNanos);
            }
        }

        @Override
        public void leaderRenewed(String electionName, boolean ok) {
            for (Guarded listener : all) {
                listener.leaderRenewed(electionName, ok);
            }
        }
    }

    /** The acquisitions of several listeners (each already guarded); the first {@code n} of the array. */
    private record FanoutAcquisition(LockEventListener.Acquisition[] each, int n)
            implements LockEventListener.Acquisition {
        @Override
        public void attempted() {
            for (int i = 0; i < n; i++) {
                each[i].attempted();
            }
        }

        @Override
        public void granted(LockEventListener.Hold hold) {
            for (int i = 0; i < n; i++) {
                each[i].granted(hold);
            }
        }

        @Override
        public void ended(LockEventListener.Outcome outcome, Throwable failure) {
            for (int i = 0; i < n; i++) {
                each[i].ended(outcome, failure);
            }
        }
    }
}
