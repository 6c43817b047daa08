package io.dlock.internal.lock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The owners of one client waiting in a {@link LocalCohort}, first in, first out, and which of them a turn goes to:
 * the first, or for a read-write lock every reader or else the first writer ({@link Pick}).
 *
 * <p>Not thread-safe: guarded by the owning cohort's monitor, like the rest of its state.
 */
final class LocalLine {

    /** Which waiters a hand-off script is sent for. */
    enum Pick {
        /** The first in line (plain lock); consecutive hand-offs are capped. */
        FIRST,
        /**
         * The whole line at once, for a script that gives the lock to whichever of them Redis has first in its own
         * queue (the fair lock): not capped, since Redis's queue already decides who is next, other clients included.
         */
        EVERY,
        /**
         * The first exclusive waiter (a writer), capped, unless a shared waiter has waited {@link
         * ReadWriteSide#READERS_PATIENCE_NANOS} or longer: then every shared waiter (the readers, who then enter
         * together; not capped, since the lock stops being exclusive and the release is published), as in Redis (the
         * readers' turn of a read-write lock, {@link ReadWriteRedisLock}); when no writer waits, every shared waiter.
         * So writers pass the lock among themselves while readers wait briefly (one script per write, the cheap
         * case), and a reader never waits behind them longer than the patience plus one write hold.
         */
        FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE
    }

    private final Deque<LocalWaiter> waiters = new ArrayDeque<>();

    void add(LocalWaiter waiter) {
        waiters.addLast(waiter);
    }

    /** Puts {@code waiters} back at the head of the line, in their order. */
    void putBackFirst(List<LocalWaiter> back) {
        for (int i = back.size() - 1; i >= 0; i--) {
            waiters.addFirst(back.get(i));
        }
    }

    boolean remove(LocalWaiter waiter) {
        return waiters.remove(waiter);
    }

    boolean contains(LocalWaiter waiter) {
        return waiters.contains(waiter);
    }

    boolean isEmpty() {
        return waiters.isEmpty();
    }

    int size() {
        return waiters.size();
    }

    /**
     * Takes the waiters {@code pick} names out of the line.
     *
     * @param capped   the hand-offs in a row are used up: capped picks take nobody
     * @param nowNanos the cohort's clock now (how long readers have waited)
     */
    List<LocalWaiter> take(Pick pick, boolean capped, long nowNanos) {
        return switch (pick) {
            case FIRST -> capped || waiters.isEmpty() ? List.of() : List.of(waiters.pollFirst());
            case EVERY -> takeAll();
            case FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE -> firstExclusiveUntilSharedOverdue(capped, nowNanos);
        };
    }

    private List<LocalWaiter> firstExclusiveUntilSharedOverdue(boolean capped, long nowNanos) {
        LocalWaiter firstExclusive = null;
        boolean overdue = false;
        for (LocalWaiter waiter : waiters) {
            if (waiter.shared) {
                overdue |= nowNanos - waiter.queuedAtNanos >= ReadWriteSide.READERS_PATIENCE_NANOS;
            } else if (firstExclusive == null) {
                firstExclusive = waiter;
            }
        }
        if (firstExclusive != null && !overdue) {
            if (capped) {
                return List.of();
            }
            waiters.remove(firstExclusive);
            return List.of(firstExclusive);
        }
        List<LocalWaiter> shared = new ArrayList<>();
        waiters.removeIf(waiter -> waiter.shared && shared.add(waiter));
        return shared;
    }

    /**
     * Takes the waiters whose turn it is to ask Redis: the first in line, and when that one waits for a shared hold,
     * every other shared waiter too (they may all get it; otherwise they would sit until their timers).
     */
    List<LocalWaiter> nextTurn() {
        LocalWaiter first = waiters.pollFirst();
        if (first == null) {
            return List.of();
        }
        if (!first.shared) {
            return List.of(first);
        }
        List<LocalWaiter> turn = new ArrayList<>();
        turn.add(first);
        waiters.removeIf(waiter -> waiter.shared && turn.add(waiter));
        return turn;
    }

    /** Takes every waiter out of the line. */
    List<LocalWaiter> takeAll() {
        List<LocalWaiter> all = List.copyOf(waiters);
        waiters.clear();
        return all;
    }

    /** @return the owner ids of {@code waiters}, separated by spaces */
    static String owners(Iterable<LocalWaiter> waiters) {
        StringBuilder b = new StringBuilder();
        for (LocalWaiter waiter : waiters) {
            b.append(b.length() == 0 ? "" : " ").append(waiter.ownerId);
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return owners(waiters);
    }
}
