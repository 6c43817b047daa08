package io.dlock.internal.latch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bookkeeping of a {@link LatchGroup}'s shared checks, apart from any I/O: which members a check's answer holds
 * for, and whether another check is due. Not thread-safe: the group's lock guards it.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Checks are numbered 1, 2, ... in the order they are sent; at most one is in flight.</li>
 *   <li>A check's answer holds for a member only when the member joined <em>before</em> the check was sent. One sent
 *       earlier may have run in Redis before a change the member must see (a {@code trySetCount} that returned
 *       before its await began, or a count-down between that check and the member's join).</li>
 *   <li>A {@link #request()} while a check is in flight is not lost: it makes another check {@link #isDue() due},
 *       to be sent once the answer is in. Requests made during one flight thus share one further check.</li>
 * </ul>
 *
 * @param <T> the member type
 */
final class CheckRounds<T> {
    /** Each member, and the number of the first check whose answer holds for it; in join order. */
    private final Map<T, Long> members = new LinkedHashMap<>();
    private long lastSent;
    private boolean inFlight;
    private boolean due;

    /** Adds {@code member}: the next check sent answers for it (joining twice keeps the first join). */
    void join(T member) {
        members.putIfAbsent(member, lastSent + 1);
    }

    void leave(T member) {
        members.remove(member);
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    /** @return the members, in join order (a view: copy it before the lock is let go) */
    Collection<T> members() {
        return Collections.unmodifiableCollection(members.keySet());
    }

    /**
     * An event asks for a check.
     *
     * @return the number of the check to send now, or 0 when one is in flight (another is then {@link #isDue() due}
     *         once it is answered)
     */
    long request() {
        if (inFlight) {
            due = true;
            return 0;
        }
        inFlight = true;
        due = false;
        return ++lastSent;
    }

    /** @return whether a request came while the check in flight was on its way, and no check has been sent since */
    boolean isDue() {
        return due;
    }

    boolean isInFlight() {
        return inFlight;
    }

    /**
     * Check {@code number}, the one in flight, was answered.
     *
     * @return the members its answer holds for (those that joined before it was sent), in join order
     * @throws IllegalStateException when {@code number} is not the check in flight
     */
    List<T> answered(long number) {
        if (!inFlight || number != lastSent) {
            throw new IllegalStateException("check " + number + " answered, but " + (inFlight ? lastSent : "none")
                    + " is in flight");
        }
        inFlight = false;
        List<T> holds = new ArrayList<>();
        members.forEach((member, first) -> {
            if (first <= number) {
                holds.add(member);
            }
        });
        return holds;
    }
}
