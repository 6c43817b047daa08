package io.dlock.internal.acquire;

import io.dlock.LockEventListener;
import io.dlock.LockKind;
import io.dlock.internal.events.EventSink;

import java.util.ArrayList;
import java.util.List;

/**
 * What an acquisition or a wait is of: how errors name it ({@link #kind()}, {@link #name()}) and how the event
 * listeners are told of its start and end ({@link #started}, {@link #ended}). The one place that maps each kind to its
 * events; {@link Acquisitions#begin} reports through it.
 */
public sealed interface Subject {
    /** @return the kind of object, as errors name it ("lock", "semaphore", "leased semaphore", "count-down latch") */
    String kind();

    /** @return the object's name */
    String name();

    /**
     * Tells the listeners of {@code events} that an acquisition starts (on the caller's thread, so that a listener's
     * trace span has the caller's as its parent).
     *
     * @return the acquisitions the listeners follow: one per lock (a group's members each as if taken alone); empty
     *         when nobody follows
     */
    List<LockEventListener.Acquisition> started(EventSink events);

    /**
     * Tells the listeners that the acquisition ended: each followed one ({@link EventSink#ended}), then the kind's
     * own end event with the time waited ({@link #endedAfter}).
     *
     * @param waitedNanos from {@link #started} to the end, on the client's clock
     */
    default void ended(EventSink events, List<LockEventListener.Acquisition> followed, Boolean acquired,
                       Throwable error, long waitedNanos) {
        for (LockEventListener.Acquisition acquisition : followed) {
            EventSink.ended(acquisition, acquired, error);
        }
        endedAfter(events.get(), EventSink.outcome(acquired, error), waitedNanos);
    }

    /** The kind's own end event, for kinds that report the time waited; none by default. */
    default void endedAfter(LockEventListener listener, LockEventListener.Outcome outcome, long waitedNanos) {
    }

    /** @return a lock of {@code kind} taken for {@code ownerId} */
    static Subject lock(LockKind kind, String name, long ownerId) {
        return new Lock(kind, name, ownerId);
    }

    /** @return plain locks taken at once for {@code ownerId}, named {@code name} in errors, reported one by one */
    static Subject lockGroup(String name, List<String> members, long ownerId) {
        return new LockGroup(name, List.copyOf(members), ownerId);
    }

    /** @return a multi-lock taken member after member: each member's own acquisition is reported, not the whole */
    static Subject multiLock(String name) {
        return new MultiLock(name);
    }

    /** @return permits of a semaphore ({@code leased} or not); {@code kind} as errors name the semaphore */
    static Subject permits(String kind, String name, boolean leased) {
        return new Permits(kind, name, leased);
    }

    /** @return an await of a count-down latch */
    static Subject latchAwait(String name) {
        return new LatchAwait(name);
    }

    /** One lock of any kind. */
    record Lock(LockKind lockKind, String name, long ownerId) implements Subject {
        @Override
        public String kind() {
            return "lock";
        }

        @Override
        public List<LockEventListener.Acquisition> started(EventSink events) {
            return followed(events.get().acquisitionStarted(lockKind, name, ownerId));
        }
    }

    /** Plain locks on one slot taken in one script: each member is reported as if taken alone (metrics, tracing). */
    record LockGroup(String name, List<String> members, long ownerId) implements Subject {
        @Override
        public String kind() {
            return "lock";
        }

        @Override
        public List<LockEventListener.Acquisition> started(EventSink events) {
            LockEventListener listener = events.get();
            List<LockEventListener.Acquisition> followed = new ArrayList<>(members.size());
            for (String member : members) {
                followed.add(listener.acquisitionStarted(LockKind.PLAIN, member, ownerId));
            }
            return followed.stream().allMatch(a -> a == LockEventListener.Acquisition.IGNORED) ? List.of() : followed;
        }
    }

    /** A multi-lock taken member after member: its members' acquisitions are reported, each by its own lock. */
    record MultiLock(String name) implements Subject {
        @Override
        public String kind() {
            return "multi-lock";
        }

        @Override
        public List<LockEventListener.Acquisition> started(EventSink events) {
            return List.of();
        }
    }

    /** Permits of a semaphore: followed acquisitions, and an end with the time waited. */
    record Permits(String kind, String name, boolean leased) implements Subject {
        @Override
        public List<LockEventListener.Acquisition> started(EventSink events) {
            return followed(events.get().permitAcquisitionStarted(name, leased));
        }

        @Override
        public void endedAfter(LockEventListener listener, LockEventListener.Outcome outcome, long waitedNanos) {
            listener.permitAcquisitionEnded(name, leased, outcome, waitedNanos);
        }
    }

    /** An await of a latch: a followed wait, and an end with the time waited. */
    record LatchAwait(String name) implements Subject {
        @Override
        public String kind() {
            return "count-down latch";
        }

        @Override
        public List<LockEventListener.Acquisition> started(EventSink events) {
            return followed(events.get().latchAwaitStarted(name));
        }

        @Override
        public void endedAfter(LockEventListener listener, LockEventListener.Outcome outcome, long waitedNanos) {
            listener.latchAwaitEnded(name, outcome, waitedNanos);
        }
    }

    private static List<LockEventListener.Acquisition> followed(LockEventListener.Acquisition acquisition) {
        return acquisition == LockEventListener.Acquisition.IGNORED ? List.of() : List.of(acquisition);
    }
}
