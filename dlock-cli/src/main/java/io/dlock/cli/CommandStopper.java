package io.dlock.cli;

import java.time.Duration;

/**
 * Stops the command of a {@code dlock run} (SIGTERM to it and its descendants, SIGKILL after a grace): with
 * {@code --on-lease-lost kill}, so that SIGKILL comes before the hold can expire. While dlock stops the command
 * itself, the orphan guard keeps only a SIGKILL at dlock's SIGKILL time, so the command does not get a second
 * SIGTERM from it.
 */
final class CommandStopper {
    private final RunSettings settings;
    private final RunHold hold;
    private final RunState state;

    CommandStopper(RunSettings settings, RunHold hold, RunState state) {
        this.settings = settings;
        this.hold = hold;
        this.state = state;
    }

    /** Stops the command and returns once it has ended. @see #grace(boolean) */
    void stop(Process process, boolean holdGone) {
        ProcessTree.terminate(process, grace(holdGone));
    }

    /** Tells the orphan guard at once, then stops the command on a thread of its own. @see #grace(boolean) */
    void stopInBackground(Process process, boolean holdGone) {
        Duration grace = grace(holdGone);
        Thread stopper = new Thread(() -> ProcessTree.terminate(process, grace), "dlock-stop-command");
        stopper.setDaemon(true);
        stopper.start();
    }

    /**
     * @param holdGone the library reported the hold lost (removed, renewals failed): nothing to stay within, the
     *                 command gets its whole {@code --kill-after}
     * @return the grace between SIGTERM and SIGKILL: {@code --kill-after}, cut so that SIGKILL comes before the hold
     * can expire
     */
    private Duration grace(boolean holdGone) {
        OrphanGuard orphans = state.orphans();
        if (!settings.killOnLeaseLost()) {
            return settings.killAfter();
        }
        long killIn = settings.stop().killInNanos(hold.validForNanos());
        Duration grace = holdGone ? settings.killAfter()
                : Duration.ofNanos(Math.max(0, Math.min(killIn, settings.killAfter().toNanos())));
        if (orphans != null) {
            orphans.deadlines(grace.toNanos(), grace.toNanos());
        }
        return grace;
    }
}
