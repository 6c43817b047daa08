package io.dlock.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.SETUP;
import static io.dlock.chaos.Event.Type.SETUP_ERROR;
import static io.dlock.chaos.Event.Type.SETUP_START;
import static io.dlock.chaos.Event.Type.EXITED;
import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;
import static io.dlock.chaos.Event.Type.UNLOCK_NOT_HELD;

/**
 * A run's events as the checks read them: all of them in time order, each lock loop's own in time order, and the
 * windows of the nemesis' faults. Immutable once built; times in messages are counted from the first event.
 */
final class History {
    static final long MS = 1_000_000L;
    /** The end of a window that never closed (the run ended inside it). */
    static final long OPEN = Long.MAX_VALUE / 2;

    final Checker.Bounds bounds;
    /** Every event, by time. */
    final List<Event> sorted;
    /** Each lock loop's events ({@code w3/rw/t0} → its events), by time. */
    final Map<String, List<Event>> loops;
    /** When each worker process ({@code w3}) was seen gone: its EXITED event. */
    final Map<String, Long> exitedAt;
    private final long origin;

    History(List<Event> events, Checker.Bounds bounds) {
        this.bounds = bounds;
        List<Event> byTime = new ArrayList<>(events);
        byTime.sort(Comparator.comparingLong(Event::nanos));
        this.sorted = Collections.unmodifiableList(byTime);
        this.origin = byTime.isEmpty() ? 0 : byTime.get(0).nanos();
        Map<String, List<Event>> byLoop = new TreeMap<>();
        Map<String, Long> exited = new HashMap<>();
        for (Event e : byTime) {
            if (Workload.ofSource(e.source()) != null) {
                byLoop.computeIfAbsent(e.source(), k -> new ArrayList<>()).add(e);
            } else if (e.type() == EXITED) {
                exited.put(e.detail().split(" ")[0], e.nanos());
            }
        }
        this.loops = Collections.unmodifiableMap(byLoop);
        this.exitedAt = Collections.unmodifiableMap(exited);
    }

    /** @return {@code t=<ms since the first event>ms}, for messages */
    String ms(long nanos) {
        return "t=" + Math.floorDiv(nanos - origin, MS) + "ms";
    }

    /** @return every fault's window, from its start to its end ({@link #OPEN} if it never ended) */
    List<long[]> faultWindows() {
        return faultWindows(null);
    }

    /** @return the windows of the faults of one kind (null: every kind), from start to end */
    List<long[]> faultWindows(Fault only) {
        List<long[]> windows = new ArrayList<>();
        Long start = null;
        for (Event e : sorted) {
            if (!e.source().equals("nemesis")) {
                continue;
            }
            if (e.type() == FAULT_START) {
                start = only == null || e.detail().startsWith(only.label() + " ") ? e.nanos() : null;
            } else if (e.type() == FAULT_END && start != null) {
                windows.add(new long[] {start, e.nanos()});
                start = null;
            }
        }
        if (start != null) {
            windows.add(new long[] {start, OPEN});
        }
        return windows;
    }

    /**
     * @return when a restart (its data lost) began: the nemesis's start of the fault, just before it kills Redis.
     *         From then on the server may be gone, and a client may already have seen its connection drop and wait
     *         for the new run: the data counts as lost from there ({@code REDIS_DOWN} is only recorded once the kill
     *         has completed, which would judge a call made in between as made before the loss)
     */
    List<Long> restarts() {
        List<Long> at = new ArrayList<>();
        for (Event e : sorted) {
            if (e.type() == FAULT_START && e.detail().startsWith(Fault.REDIS_RESTART.label() + " ")) {
                at.add(e.nanos());
            }
        }
        return at;
    }

    /** @return the windows in which Redis certainly could not answer (REDIS_DOWN to REDIS_UP) */
    List<long[]> silentWindows() {
        List<long[]> silent = new ArrayList<>();
        Long down = null;
        for (Event e : sorted) {
            if (e.type() == REDIS_DOWN) {
                down = e.nanos();
            } else if (e.type() == REDIS_UP && down != null) {
                silent.add(new long[] {down, e.nanos()});
                down = null;
            }
        }
        return silent;
    }

    /**
     * @return the {down, up} of every {@code redis-restart}: from the kill (the data lost) to the restarted server's
     *         start ({@link #OPEN} if the run ended first)
     */
    List<long[]> restartWindows() {
        List<long[]> windows = new ArrayList<>();
        Long down = null;
        for (Event e : sorted) {
            boolean restart = e.detail().startsWith(Fault.REDIS_RESTART.label());
            if (e.type() == REDIS_DOWN && restart) {
                down = e.nanos();
            } else if (e.type() == REDIS_UP && restart && down != null) {
                windows.add(new long[] {down, e.nanos()});
                down = null;
            }
        }
        if (down != null) {
            windows.add(new long[] {down, OPEN});
        }
        return windows;
    }

    /** @return whether {@code e} begins a call of a loop: an acquisition, a set-up or (EXIT) a release */
    static boolean beginsCall(Event e) {
        return e.type() == ACQUIRE_START || e.type() == SETUP_START || e.type() == EXIT;
    }

    /**
     * @return the event that ended the call begun at {@code events.get(from)} ({@link #beginsCall}), or null if none
     *         did (its worker was killed first)
     */
    static Event outcome(List<Event> events, int from) {
        Event.Type begin = events.get(from).type();
        if (begin == SETUP_START) {
            for (int i = from + 1; i < events.size(); i++) {
                Event e = events.get(i);
                if (e.type() == SETUP || e.type() == SETUP_ERROR) {
                    return e;
                }
            }
            return null;
        }
        return outcome(events, from, begin == ACQUIRE_START);
    }

    /**
     * @return the event that ended the lock call begun at {@code events.get(from)}, or null if none did before the
     *         loop's next call began (a loop's calls are one after another: a cancelled hold's release, which the
     *         reactive loops do not always see, is never answered by a later call's outcome)
     */
    static Event outcome(List<Event> events, int from, boolean acquire) {
        for (int i = from + 1; i < events.size(); i++) {
            Event e = events.get(i);
            if (beginsCall(e)) {
                return null;
            }
            if (acquire && (e.type() == ACQUIRED || e.type() == ACQUIRE_TIMEOUT || e.type() == ACQUIRE_ERROR)) {
                return e;
            }
            if (!acquire && (e.type() == UNLOCKED || e.type() == UNLOCK_NOT_HELD || e.type() == UNLOCK_ERROR)) {
                return e;
            }
        }
        return null;
    }

    static boolean succeeded(Event outcome) {
        return outcome.type() == ACQUIRED || outcome.type() == UNLOCKED || outcome.type() == UNLOCK_NOT_HELD
                || outcome.type() == SETUP;
    }
}
