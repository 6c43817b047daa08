package io.dlock.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.EXIT;

/**
 * One hold: from acquisition to leaving the critical section.
 *
 * @param worker     the lock loop, the hold's owner ({@code w3/rw/t0})
 * @param kind       its lock kind
 * @param read       a read hold of the read-write lock
 * @param token      the fencing token (fenced lock) or the loop's hold number
 * @param validUntil the end of its longest validity claim ({@link Long#MIN_VALUE} when it made none)
 * @param members    the locks a multi-lock hold took ({@code names=} of its ACQUIRED), else empty
 */
record Hold(String worker, Workload kind, boolean read, long token, long requested, long acquired, long end,
            long validUntil, Set<String> members) {

    /**
     * Two holds conflict when they are on one lock, of different owners, and not both read holds; two multi-lock
     * holds when they share a member. Semaphore holds never conflict pairwise: {@link PermitChecks} counts them.
     */
    boolean conflictsWith(Hold other) {
        if (kind != other.kind || worker.equals(other.worker) || kind.permits() > 0) {
            return false;
        }
        if (kind.multiLock()) {
            return !Collections.disjoint(members, other.members);
        }
        return !(read && other.read);
    }

    /** @return what two conflicting holds both took: the lock's name, or the multi-locks' shared members */
    String sharedWith(Hold other) {
        if (!kind.multiLock()) {
            return kind.lockName();
        }
        List<String> shared = new ArrayList<>(members);
        shared.retainAll(other.members);
        Collections.sort(shared);
        return String.join(",", shared);
    }

    /**
     * @return the earliest moment any part of the hold may have been written to Redis: its request for a multi-lock,
     *         whose members are taken one after another before it is {@link #acquired}; its acquisition otherwise (a
     *         reply of the Redis that granted it comes before that Redis is stopped)
     */
    long writtenFrom() {
        return members.size() > 1 && requested != Long.MIN_VALUE ? requested : acquired;
    }

    /** @return the end of the interval in which the hold is known valid (before {@link #acquired} if none) */
    long knownValidUntil() {
        return validUntil == Long.MIN_VALUE ? acquired - 1 : Math.min(end, validUntil);
    }

    /** @return e.g. {@code w3/rw/t0 (read hold 4)}, for messages */
    String describe() {
        return describe(worker, kind, read, token);
    }

    /** @return e.g. {@code w3/rw/t0 (read hold 4)} or {@code w1/fenced/t2 (token 1007)}, for messages */
    static String describe(String loop, Workload kind, boolean read, long token) {
        return loop + (kind == Workload.FENCED ? " (token " : read ? " (read hold " : kind.permits() > 0 ? " (permit "
                : " (hold ") + token + ")";
    }

    /**
     * @return every hold of the run; one still open when its loop's events end (killed or hung inside) lasts until
     * its process was gone
     */
    static List<Hold> of(History history) {
        List<Hold> holds = new ArrayList<>();
        for (Map.Entry<String, List<Event>> loop : history.loops.entrySet()) {
            String worker = loop.getKey();
            List<Event> events = loop.getValue();
            Workload kind = Workload.ofSource(worker);
            if (!kind.holds()) {
                continue; // the latch: its calls are judged by LatchChecks
            }
            long requested = Long.MIN_VALUE;
            Event acquired = null;
            long validUntil = Long.MIN_VALUE;
            for (Event e : events) {
                if (e.type() == ACQUIRE_START) {
                    requested = e.nanos();
                } else if (e.type() == ACQUIRED) {
                    acquired = e;
                    validUntil = Claims.claimEnd(e, Long.MIN_VALUE);
                } else if (acquired != null && e.token() == acquired.token()) {
                    validUntil = Claims.claimEnd(e, validUntil);
                    if (e.type() == EXIT) {
                        holds.add(new Hold(worker, kind, isRead(acquired), acquired.token(), requested,
                                acquired.nanos(), e.nanos(), validUntil, members(acquired)));
                        acquired = null;
                    }
                }
            }
            if (acquired != null) {
                long last = events.get(events.size() - 1).nanos();
                long gone = history.exitedAt.getOrDefault(Workload.processOf(worker), last);
                holds.add(new Hold(worker, kind, isRead(acquired), acquired.token(), requested, acquired.nanos(),
                        Math.max(last, gone), validUntil, members(acquired)));
            }
        }
        return holds;
    }

    /** @return the members named by a multi-lock's ACQUIRED ({@code names=a,b}), else none */
    static Set<String> members(Event acquired) {
        String names = Claims.field(acquired, "names=");
        return names == null ? Set.of() : Set.of(names.split(","));
    }

    /** @return whether an ACQUIRED event is of the read side of the read-write lock */
    static boolean isRead(Event acquired) {
        return List.of(acquired.detail().split(" ")).contains("read");
    }
}
