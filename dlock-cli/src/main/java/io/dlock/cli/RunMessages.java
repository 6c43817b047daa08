package io.dlock.cli;

import io.dlock.LeaseLostEvent;

import java.io.PrintStream;
import java.time.Duration;

/**
 * Every line that one {@code dlock run} writes about itself, on stderr (stdout belongs to the command). Each is one
 * line starting with {@code dlock: }; the {@code --verbose} ones are written only with it, the busy message not with
 * {@code --quiet}.
 */
final class RunMessages {
    private final RunSettings settings;
    private final RunHold hold;
    private final PrintStream err;

    RunMessages(RunSettings settings, RunHold hold, PrintStream err) {
        this.settings = settings;
        this.hold = hold;
        this.err = err;
    }

    /** The stream the messages go to, for the orphan guard's own. */
    PrintStream stream() {
        return err;
    }

    /** @param holder who holds it, as {@link RunHold#holderPhrase} says it */
    void busy(String holder) {
        if (settings.quiet()) {
            return;
        }
        Duration wait = settings.waitTime();
        err.println(wait == null || wait.isZero()
                ? "dlock: " + hold.words().busy() + ": " + holder
                : "dlock: timed out after " + DurationText.format(wait) + " waiting for " + hold.words().waitedFor() + ": "
                        + holder);
    }

    /** @param how {@link RunHold#acquiredAs()}: {@code as <client id>:<owner id>}, {@code as permit <id>} */
    void acquired(String how) {
        verbose("acquired " + name() + " " + how);
    }

    void tooLittleTime(long validForNanos) {
        err.println("dlock: " + name() + " is valid for only "
                + DurationText.formatMillis(validForNanos / 1_000_000) + ", too little to run the command and stop it "
                + "in time; not running it");
    }

    void aboutToBeLost(long validForNanos) {
        err.println("dlock: " + name() + " is about to be lost while the command is running: "
                + (validForNanos > 0 ? "its lease ends in " + DurationText.formatMillis(validForNanos / 1_000_000)
                        : "its lease has ended")
                + (settings.lease() == null ? " (not renewed)" : "") + "; stopping the command");
    }

    /** The library reported the hold lost; {@code --on-lease-lost} says whether the command is stopped. */
    void lost(LeaseLostEvent event) {
        String what = "lost " + name() + " while the command was running: " + why(event);
        if (settings.killOnLeaseLost()) {
            err.println("dlock: " + what + "; stopping the command");
        } else {
            err.println("dlock: warning: " + what + "; the command keeps running (--on-lease-lost warn)");
        }
    }

    void stoppedByOrphanGuard() {
        err.println("dlock: could not renew " + name() + " in time (stopped?): the "
                + "command was stopped before the lease could end");
    }

    void stoppingOnSignal() {
        verbose("stopping the command and releasing " + name());
    }

    void commandExited(int code) {
        verbose("command exited with " + code);
    }

    void released() {
        verbose("released " + name());
    }

    void notHeldAtRelease() {
        err.println("dlock: warning: " + name() + " was no longer held when the command ended "
                + "(its lease was lost)");
    }

    void releaseFailed(String reason) {
        err.println("dlock: warning: could not release " + name() + ": " + reason
                + "; it expires when its lease ends");
    }

    void releaseTimedOut(Duration timeout) {
        err.println("dlock: warning: could not release " + name() + " within "
                + DurationText.format(timeout) + "; it expires when its lease ends");
    }

    void releaseInterrupted() {
        err.println("dlock: warning: interrupted while releasing " + name());
    }

    private void verbose(String message) {
        if (settings.verbose()) {
            err.println("dlock: " + message);
        }
    }

    /** What is held: {@code lock 'NAME'}, {@code the permit of semaphore 'NAME'}. */
    private String name() {
        return hold.words().held();
    }

    private static String why(LeaseLostEvent event) {
        switch (event.reason()) {
            case EXPIRED:
                return "its lease ran out";
            case REMOVED:
                return "it was removed (force-unlocked or deleted)";
            case RENEWAL_FAILED:
                return "renewals failed until the lease ran out (Redis unreachable?)";
            default:
                return event.reason().toString();
        }
    }
}
