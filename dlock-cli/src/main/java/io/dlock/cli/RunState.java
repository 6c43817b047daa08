package io.dlock.cli;

import io.dlock.LeaseLostEvent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the threads of one {@code dlock run} share, each transition one synchronized method: the main thread
 * (acquire, run the command, finish), the shutdown hook (a signal: {@link #stop()}) and the lease watchers (the
 * {@link LeaseGuard}'s stop time, the library's lease-lost events).
 *
 * <p>Invariants:
 * <ul>
 *   <li>{@code stopping}, once set by the shutdown hook, stays set, and from then on no attempt and no command starts:
 *       the attempt and the child the hook reads after {@link #stop()} are final. The main thread, finding it set,
 *       leaves the rest of the run to the hook.</li>
 *   <li>The command starts inside {@link #launch}, atomically with the check of {@code stopping}: the hook either
 *       finds the child or no child ever starts. The child is set at most once, and with {@code stopsOnLoss} never
 *       after a loss was recorded.</li>
 *   <li>{@code lost} is set once: the first loss (reported by the library, found at the stop time, or the orphan
 *       guard's stop) is the one told.</li>
 *   <li>{@code stoppedForLeaseLoss} is set only with or after {@code lost}; it makes the run exit 76.</li>
 *   <li>{@code held} says whether the hold is ours to release; {@link #takeHeld()} hands that job over once.</li>
 * </ul>
 */
final class RunState {
    private boolean stopping;
    private CompletableFuture<Boolean> acquiring;
    private boolean held;
    private Process child;
    private LeaseGuard guard;
    private OrphanGuard orphans;
    private LeaseLostEvent lost;
    private boolean stoppedForLeaseLoss;
    private volatile boolean ended;

    /** Starts the acquisition unless the hook is stopping the run. @return the attempt, or null when stopping */
    synchronized CompletableFuture<Boolean> attempt(Supplier<CompletableFuture<Boolean>> tryLock) {
        if (stopping) {
            return null;
        }
        acquiring = tryLock.get();
        return acquiring;
    }

    /** The attempt's outcome, for the main thread. @return false when the hook is stopping (the hold is its job) */
    synchronized boolean acquired(boolean acquired) {
        if (stopping) {
            return false;
        }
        held = acquired;
        return true;
    }

    /** The hook found the hold after all (an attempt that completed, or came back after cancelling). */
    synchronized void markHeld() {
        held = true;
    }

    /** @return whether there is a hold to release; clears it, so that it is released once */
    synchronized boolean takeHeld() {
        boolean release = held;
        held = false;
        return release;
    }

    /**
     * Starts the command, unless the hook is stopping the run or, with {@code stopsOnLoss}, the hold was lost already
     * (the command would only be stopped again); the launch's process and guards become the run's.
     *
     * @return the launch, or null when the command was not started
     */
    synchronized CommandLaunch launch(boolean stopsOnLoss, Supplier<CommandLaunch> start) {
        if (stopping || lost != null && stopsOnLoss) {
            return null;
        }
        CommandLaunch launch = start.get();
        child = launch.process();
        guard = launch.guard();
        orphans = launch.orphans();
        return launch;
    }

    /** The shutdown hook takes over the run. */
    synchronized void stop() {
        stopping = true;
    }

    synchronized boolean isStopping() {
        return stopping;
    }

    /** The acquisition, if one was started. */
    synchronized CompletableFuture<Boolean> pendingAttempt() {
        return acquiring;
    }

    /** The command, if it was started. */
    synchronized Process child() {
        return child;
    }

    synchronized LeaseGuard guard() {
        return guard;
    }

    synchronized OrphanGuard orphans() {
        return orphans;
    }

    synchronized LeaseLostEvent lost() {
        return lost;
    }

    /**
     * The hold is about to expire while the command runs (the lease guard's stop time).
     *
     * @return the command to stop now; null when there is nothing to do: a loss was recorded before, the hook is
     * stopping, or the command has not started or has ended (then the main thread judges how it ended)
     */
    synchronized Process expiring(LeaseLostEvent expired) {
        if (lost != null || stopping || child == null || !child.isAlive()) {
            return null;
        }
        lost = expired;
        stoppedForLeaseLoss = child.isAlive();
        return child;
    }

    /**
     * The library reported the hold lost.
     *
     * @param stopsCommand {@code --on-lease-lost kill}: a running command is to be stopped
     * @return whether this is the first loss (to be told and acted on)
     */
    synchronized boolean recordLoss(LeaseLostEvent event, boolean stopsCommand) {
        if (lost != null) {
            return false;
        }
        lost = event;
        stoppedForLeaseLoss = stopsCommand && child != null && child.isAlive();
        notifyAll();
        return true;
    }

    /**
     * Waits up to {@code nanos} for the library's report of a loss ({@link #recordLoss}).
     *
     * @return whether a loss is recorded
     */
    synchronized boolean awaitLoss(long nanos) {
        long end = System.nanoTime() + nanos;
        long left = nanos;
        while (lost == null && left > 0) {
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            left = end - System.nanoTime();
        }
        return lost != null;
    }

    /**
     * The command ended by a signal that the orphan guard sent because dlock did not renew in time (it was stopped,
     * or hung); counts as a stop for lease loss unless the hook is stopping or the command was so stopped already.
     *
     * @return whether this is the first news of a loss, to be told
     */
    synchronized boolean stoppedByOrphanGuard(LeaseLostEvent expired) {
        if (stopping || stoppedForLeaseLoss) {
            return false;
        }
        boolean first = lost == null;
        if (first) {
            lost = expired;
        }
        stoppedForLeaseLoss = true;
        return first;
    }

    /** Whether the command was stopped (or is being stopped) because the hold ended or was lost. */
    synchronized boolean stoppedForLeaseLoss() {
        return stoppedForLeaseLoss;
    }

    /** The run is finishing: lease events no longer matter. */
    void end() {
        ended = true;
    }

    boolean hasEnded() {
        return ended;
    }
}
