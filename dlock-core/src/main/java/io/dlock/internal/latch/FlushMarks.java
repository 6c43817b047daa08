package io.dlock.internal.latch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which members of a {@link LatchGroup} a {@code 0} heard on the latch's channel releases at once, without a check,
 * apart from any I/O. Not thread-safe: the group's lock guards it.
 *
 * <p>A <em>flush point</em> is a {@code SUBSCRIBE} of the latch's channel on the pub/sub connection: the group's
 * first, or an idempotent one sent beside a check. Redis answers it after every message it published before it ran,
 * and the client handles that answer and the messages in the order they came. So, where the pub/sub connection is to
 * the very server that runs the latch's scripts, a message handled after flush point {@code n} was answered was
 * published after {@code n} ran in Redis.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Flush points are numbered 1, 2, ... in the order they are sent; {@link #confirmed(long)} only grows.</li>
 *   <li>A member is <em>witnessed</em> by flush point {@code n} when {@code n} was sent after it joined: its mark is
 *       the number of the first flush point sent after its join.</li>
 *   <li>A {@code 0} (only an opening publishes it: a count-down to zero, a delete, an announced expiry) handled after
 *       the answer to a flush point that witnesses a member was published after that member joined: the latch opened
 *       while the member waited, and the member may return {@code true} whatever any check says since.</li>
 * </ul>
 *
 * @param <T> the member type
 */
final class FlushMarks<T> {
    /** Each member, and the number of the first flush point sent after it joined. */
    private final Map<T, Long> marks = new LinkedHashMap<>();
    private long sent;
    private long confirmed;

    /** Adds {@code member}: the next flush point sent witnesses it (joining twice keeps the first join). */
    void join(T member) {
        marks.putIfAbsent(member, sent + 1);
    }

    void leave(T member) {
        marks.remove(member);
    }

    /** @return whether a member joined since the last flush point was sent: one sent now would witness it */
    boolean isDue() {
        for (long mark : marks.values()) {
            if (mark > sent) {
                return true;
            }
        }
        return false;
    }

    /**
     * A flush point is being sent now.
     *
     * @return its number, to pass to {@link #confirmed(long)} once Redis answered it
     */
    long sending() {
        return ++sent;
    }

    /** Redis answered flush point {@code number}, and every message before the answer was handled. */
    void confirmed(long number) {
        confirmed = Math.max(confirmed, number);
    }

    /** @return the members a {@code 0} handled now releases: those a confirmed flush point witnessed, in join order */
    List<T> witnessed() {
        List<T> released = new ArrayList<>();
        marks.forEach((member, mark) -> {
            if (mark <= confirmed) {
                released.add(member);
            }
        });
        return released;
    }
}
