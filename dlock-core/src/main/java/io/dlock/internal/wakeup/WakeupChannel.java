package io.dlock.internal.wakeup;

import io.dlock.internal.lease.TaskScheduler;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sleepers of one channel and the wake-ups nobody has consumed yet. {@code refs} is guarded by the hub's map
 * lock; everything else is lock-free.
 *
 * <p>Two kinds of stored wake-up. A "wake one" that finds no sleeper is kept as an anonymous permit, for whichever
 * sleeper comes next (at most one per joined waiter). A "wake all" is counted ({@link #allWakes}) and belongs to every
 * joined waiter: each has a {@link Seen} mark, the count up to which it has had its wake-ups, and a sleep returns at
 * once while the count is past the mark. A waiter that tells the channel when it attempts
 * ({@link WakeupHub.Subscription#attempting()}) moves its mark to the count at that moment: a message received before
 * an attempt was sent came from a change Redis ran before that attempt, so the attempt's answer already covers it, and
 * only the wake-ups received after it still end a sleep. That is what spares a multi-lock waiter one retry per
 * member channel after a group release (one script, a message on each member's channel).
 */
final class WakeupChannel {
    final String name;
    final CompletableFuture<Void> ready;
    private final TaskScheduler scheduler;
    private final Steps steps;
    private final Queue<Sleeper> sleepers = new ConcurrentLinkedQueue<>();
    private final AtomicInteger permits = new AtomicInteger();
    /** Every "wake all" so far; never decreases. */
    private final AtomicLong allWakes = new AtomicLong();
    volatile int refs;
    /** Holders of the subscription that are no waiters ({@link WakeupHub#keep}); guarded like {@link #refs}. */
    volatile int keeps;
    /** Set when a joiner asked for it: every unlock message wakes every sleeper (see {@link WakeupHub#join}). */
    volatile boolean everyMessageWakesAll;
    /** Set when a semaphore joined it: a message is a permit count, waking that many sleepers at most. */
    volatile boolean countsPermits;
    /** Set when joined as an owner's own channel ({@link WakeupHub#joinLingering}); guarded like {@link #refs}. */
    boolean lingers;
    /** Whether the linger holds one of the {@link #keeps}; guarded like {@link #refs}. */
    boolean lingering;
    /** Whether a waiter left since the linger's timer was armed; guarded like {@link #refs}. */
    boolean usedSinceArmed;

    WakeupChannel(String name, CompletableFuture<Void> ready, TaskScheduler scheduler, Steps steps) {
        this.name = name;
        this.ready = ready;
        this.scheduler = scheduler;
        this.steps = steps;
    }

    /** Where a sleep or a wake-up stands between its two steps (reported to {@link Steps}, for tests). */
    enum Step {
        /** A sleeper found no stored wake-up and has not enqueued itself yet. */
        SLEEPER_LOOKED,
        /** A sleeper enqueued itself and has not looked for a stored wake-up again yet. */
        SLEEPER_ENQUEUED,
        /** A waker (wake one or all) did the first of its two steps (store, look for sleepers) and not the second. */
        WAKER_HALFWAY
    }

    /**
     * Told at each {@link Step}, on the thread taking it: lets a test run the other side's whole operation exactly
     * there, to check every such interleaving deterministically. {@link #NONE} in production.
     */
    @FunctionalInterface
    interface Steps {
        Steps NONE = step -> { };

        void reached(Step step);
    }

    /** @return a new waiter's mark: the "wake all"s before it joined are not its own */
    Seen newSeen() {
        return new Seen(allWakes.get());
    }

    /** Moves {@code seen} to now: the wake-ups so far are covered (the waiter is about to ask Redis). */
    void attempting(Seen seen) {
        seen.upTo = allWakes.get();
    }

    /** @return whether a "wake all" came past {@code seen}'s mark (which stays where it is) */
    boolean wokeAllSince(Seen seen) {
        return allWakes.get() > seen.upTo;
    }

    CompletableFuture<Boolean> sleep(long timeoutMillis, Seen seen) {
        if (takePermit() || seen.take(allWakes.get())) {
            return CompletableFuture.completedFuture(true);
        }
        steps.reached(Step.SLEEPER_LOOKED);
        Sleeper sleeper = new Sleeper();
        sleepers.add(sleeper);
        steps.reached(Step.SLEEPER_ENQUEUED);
        // A wake-up may have been stored between the check above and the enqueue: take it now.
        long before = seen.upTo;
        if (takePermit()) {
            if (!sleeper.complete(true)) {
                permits.incrementAndGet();
            }
            sleepers.remove(sleeper);
            return sleeper;
        }
        if (seen.take(allWakes.get())) {
            if (!sleeper.complete(true)) {
                seen.upTo = before; // ended from outside meanwhile: the wake-up stays this waiter's
            }
            sleepers.remove(sleeper);
            return sleeper;
        }
        Runnable cancelTimer = scheduler.schedule(() -> {
            if (sleeper.complete(false)) {
                sleepers.remove(sleeper);
            }
        }, TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMillis)));
        sleeper.whenComplete((woken, error) -> {
            cancelTimer.run();
            sleepers.remove(sleeper); // also when ended from outside (a waiter cut short, a multi-channel sleep)
        });
        return sleeper;
    }

    /*
     * Wakers store the wake-up first and then look for sleepers; a sleeper enqueues itself first and then looks for a
     * stored wake-up (sleep above). So one of the two always sees the other. (The other way round, a sleeper that
     * enqueued after the waker found the queue empty, and looked before the waker stored the wake-up, slept on beside
     * a stored wake-up until its timeout.)
     */

    void wakeOne() {
        // keep the wake-up for the next sleeper, at most one per joined waiter; handed to a sleeper below if any
        int cap = storable();
        int before = permits.getAndUpdate(p -> p < cap ? p + 1 : p);
        boolean stored = before < cap;
        steps.reached(Step.WAKER_HALFWAY);
        Sleeper sleeper;
        while ((sleeper = sleepers.poll()) != null) {
            if (sleeper.complete(true)) {
                if (stored) {
                    takePermit(); // given to this sleeper: take it back (if a sleeper took it itself, it woke too)
                }
                return;
            }
        }
    }

    /** Wakes up to {@code n} sleepers (none when {@code n <= 0}); wake-ups beyond the sleepers are kept as permits. */
    void wakeSome(long n) {
        long left = Math.min(n, Math.max(1, refs)); // with no waiter (a kept channel), wakeOne stores nothing
        for (long i = 0; i < left; i++) {
            wakeOne();
        }
    }

    void wakeAll() {
        // counted first, for every joined waiter, also those woken here: a waiter may have more than one sleep queued
        // (a latch group's stale sleeps), so the sleepers woken say nothing about who is on its way; a waiter that
        // attempts after this moves its mark past it
        allWakes.incrementAndGet();
        steps.reached(Step.WAKER_HALFWAY);
        Sleeper sleeper;
        while ((sleeper = sleepers.poll()) != null) {
            sleeper.complete(true);
        }
    }

    /**
     * @return how many wake-ups may be stored: one per joined waiter; at least one while the channel is only joined
     *         (a message racing the last waiter's leave), none while it is only kept (nobody to take it)
     */
    private int storable() {
        int joined = refs;
        return keeps > 0 ? joined : Math.max(1, joined);
    }

    /** Drops the stored wake-ups (the last waiter of a kept channel left). */
    void dropStoredWakeups() {
        permits.set(0);
    }

    int sleepers() {
        return sleepers.size();
    }

    private boolean takePermit() {
        return permits.getAndUpdate(p -> p > 0 ? p - 1 : 0) > 0;
    }

    /**
     * One waiter's mark on one channel: the count of "wake all"s it has had (consumed by a sleep, or covered by an
     * attempt). Touched only by its waiter's own steps, which follow each other.
     */
    static final class Seen {
        volatile long upTo;

        Seen(long upTo) {
            this.upTo = upTo;
        }

        /** @return whether a "wake all" past the mark was there, now consumed (the mark moves to {@code count}) */
        boolean take(long count) {
            if (count > upTo) {
                upTo = count;
                return true;
            }
            return false;
        }
    }

    /** A future completed once, by a wake-up (true) or the timer (false). */
    private static final class Sleeper extends CompletableFuture<Boolean> {
    }
}
