package io.dlock.internal.lock;

import io.dlock.internal.wakeup.WakeupHub;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The lines in which owners of one client take turns to acquire the same {@link PlainLockGroup}: only the first of a
 * line attempts and sleeps in Redis; the others wait inside the client until it has the locks or gave up. Without
 * it, every owner waiting for the same members would be woken by every member's unlock message and send an attempt
 * that all but one lose (the waiters of one channel all wake on each of its messages, see
 * {@link io.dlock.internal.wakeup.WakeupHub#joinAll}).
 *
 * <p>Only owners that hold none of the members take a place: a holder re-entering goes straight to Redis (it must
 * never wait behind owners that wait for what it holds).
 *
 * <p>While owners queue behind the head (two places or more), the line keeps the members' channels subscribed
 * ({@link WakeupHub#keep}) until it is empty: each turn's waiter joins and leaves the channels, and without the keep
 * every turn would subscribe and unsubscribe them again (bench S12S: 6 pub/sub commands per acquisition). A line that
 * never queues (one owner at a time) keeps nothing: its waiter's own join is its only subscription.
 *
 * <p>Invariant: the turn of a line's head is complete, no other turn of that line is; a line with no turns is gone,
 * and so is its keep. Thread-safe; no lock is held while a turn is handed over (its callbacks run then).
 */
final class GroupTurns {
    private final Map<String, Deque<CompletableFuture<Void>>> lines = new HashMap<>();
    /** The keep of each line that queued, until it is empty (guarded by this). */
    private final Map<String, WakeupHub.Subscription> keeps = new HashMap<>();
    private final WakeupHub hub;

    /** @param hub the client's wake-ups, whose channels a queueing line keeps subscribed */
    GroupTurns(WakeupHub hub) {
        this.hub = hub;
    }

    /**
     * @param channels the members' channels, kept subscribed while owners queue in the line
     * @return a place in {@code line}: its future completes when it is this place's turn (at once when first)
     */
    CompletableFuture<Void> enter(String line, List<String> channels) {
        CompletableFuture<Void> turn = new CompletableFuture<>();
        boolean first;
        synchronized (this) {
            Deque<CompletableFuture<Void>> places = lines.computeIfAbsent(line, key -> new ArrayDeque<>());
            places.addLast(turn);
            first = places.size() == 1;
            if (places.size() == 2 && !keeps.containsKey(line)) {
                keeps.put(line, hub.keep(channels)); // never blocks: the subscribe is sent, not awaited
            }
        }
        if (first) {
            turn.complete(null);
        }
        return turn;
    }

    /** Leaves {@code line} (its turn over, or given up before it came); the next place's turn comes if it was first. */
    void leave(String line, CompletableFuture<Void> turn) {
        CompletableFuture<Void> next = null;
        WakeupHub.Subscription kept = null;
        synchronized (this) {
            Deque<CompletableFuture<Void>> places = lines.get(line);
            if (places == null) {
                return;
            }
            boolean wasFirst = places.peekFirst() == turn;
            places.remove(turn);
            if (places.isEmpty()) {
                lines.remove(line);
                kept = keeps.remove(line);
            } else if (wasFirst) {
                next = places.peekFirst();
            }
        }
        if (next != null) {
            next.complete(null); // the next turn's waiter joins while the keep still holds the channels
        }
        if (kept != null) {
            kept.close();
        }
    }

    /** @return owners in {@code line} (the one whose turn it is included) */
    synchronized int size(String line) {
        Deque<CompletableFuture<Void>> places = lines.get(line);
        return places == null ? 0 : places.size();
    }
}
