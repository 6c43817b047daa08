package io.dlock.internal.acquire;

import io.dlock.internal.wakeup.WakeupHub;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One owner's steps on one object, given by the object's kind ({@code RedisLock#startAcquire} for every lock kind,
 * the semaphores' {@code PermitAcquisition}).
 *
 * @param kind         names the kind of object in errors ("lock", "semaphore", …)
 * @param name         names the object in errors
 * @param attempt      one acquire attempt
 * @param undo         gives back what one granted attempt took: used when the acquisition succeeds after it was
 *                     abandoned
 * @param giveUp       removes what the attempts left behind when the loop ends without a grant (a fair lock's
 *                     queue entry, what an unanswered attempt may have taken); may be a no-op
 * @param channels     the channels whose messages wake this waiter: one for a lock; the members' for a multi-lock
 *                     taken in one step, which then wakes on a message on any of them ({@link WakeupHub#joinAll})
 * @param wakeMode     how a message wakes this client's waiters on the channel; always {@link WakeMode#ALL} with
 *                     several channels
 * @param gate         waits behind local holders and takes hand-offs; null for kinds without
 * @param nextAfter    told of a cleanup that finishes after the result completed (a give-back or give-up after the
 *                     deadline rule answered), so that the owner's next acquisition of the object starts after it
 *                     ({@link io.dlock.internal.lease.HoldTable#trackCleanup}); a no-op for kinds whose attempts
 *                     cannot meet an earlier one's cleanup (permits: an id per attempt). Close waits for the cleanup
 *                     whatever this does: the loop stays registered with {@link Acquisitions} until it
 *                     {@linkplain AcquireLoop#finished() finished}, which includes it
 * @param ownChannel   the one channel is this owner's alone (a fair waiter's): it stays subscribed a while after the
 *                     wait ({@link WakeupHub#joinLingering}), for the owner's next wait
 */
public record AcquireSteps(String kind, String name, AcquireLoop.Attempt attempt, Supplier<CompletableFuture<?>> undo,
                    Supplier<CompletableFuture<?>> giveUp, List<String> channels, WakeMode wakeMode,
                    LocalGate gate, Consumer<CompletableFuture<?>> nextAfter, boolean ownChannel) {
    public AcquireSteps {
        if (ownChannel && (channels.size() != 1 || wakeMode == WakeMode.COUNTING)) {
            throw new IllegalArgumentException("an owner's own channel is one lock channel: " + channels);
        }
    }

    /** Steps whose channels are shared by the object's waiters (every kind but the fair lock). */
    public AcquireSteps(String kind, String name, AcquireLoop.Attempt attempt, Supplier<CompletableFuture<?>> undo,
                        Supplier<CompletableFuture<?>> giveUp, List<String> channels, WakeMode wakeMode,
                        LocalGate gate, Consumer<CompletableFuture<?>> nextAfter) {
        this(kind, name, attempt, undo, giveUp, channels, wakeMode, gate, nextAfter, false);
    }

    /** @return this waiter's membership of its channels, as its wake mode asks (several channels: any wakes it) */
    WakeupHub.Subscription join(WakeupHub hub) {
        if (channels.size() > 1) {
            return hub.joinAll(channels);
        }
        if (ownChannel) {
            return hub.joinLingering(channels.get(0), wakeMode == WakeMode.ALL);
        }
        return wakeMode == WakeMode.COUNTING ? hub.joinCounting(channels.get(0))
                : hub.join(channels.get(0), wakeMode == WakeMode.ALL);
    }
}
