package io.dlock.cli;

import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;

import java.util.concurrent.TimeUnit;

/**
 * How a {@code dlock run} answers the end of its hold while the command runs: the {@link LeaseGuard}'s stop time
 * (the hold is about to expire: not renewed in time, or a fixed lease) and the library's lease-lost events (removed,
 * renewals failed). Only the first loss counts: it is told on stderr and, with {@code --on-lease-lost kill}, the
 * command is stopped in the background (the run then exits 76); with {@code warn} the command runs on.
 */
final class LeaseLossHandler implements LeaseLostListener {
    /**
     * A hold found gone (removed, or a renewal refused) is valid for 0 at once, while the library's report of why
     * reaches {@link #leaseLost} on the client's executor a moment later: the lease guard, which may see the 0 first,
     * leaves the telling to that report for this long. The hold is gone either way; the command is stopped by
     * whichever acts.
     */
    private static final long LOSS_REPORT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final RunSettings settings;
    private final RunHold hold;
    private final RunState state;
    private final CommandStopper stopper;
    private final RunMessages messages;

    LeaseLossHandler(RunSettings settings, RunHold hold, RunState state, CommandStopper stopper,
                     RunMessages messages) {
        this.settings = settings;
        this.hold = hold;
        this.state = state;
        this.stopper = stopper;
        this.messages = messages;
    }

    /**
     * The lease guard's call: the hold ends in {@code validForNanos}, so the command must be stopped now to have
     * ended before then (SIGKILL no later than the plan's kill time).
     */
    void onStopTime(long validForNanos) {
        if (validForNanos <= 0 && state.awaitLoss(LOSS_REPORT_WAIT_NANOS)) {
            return; // the library dropped the hold before its stop time and said why: leaseLost() acted on it
        }
        Process process = state.expiring(hold.expired());
        if (process == null) {
            return;
        }
        messages.aboutToBeLost(validForNanos);
        stopper.stopInBackground(process, false);
    }

    /** The client's listener: hears every lock of the client, acts on this run's hold until the run finishes. */
    @Override
    public void leaseLost(LeaseLostEvent event) {
        if (state.hasEnded() || !hold.isAbout(event) || !state.recordLoss(event, settings.killOnLeaseLost())) {
            return;
        }
        messages.lost(event);
        Process process = state.child(); // final once a loss is recorded, for a run that stops on loss
        if (settings.killOnLeaseLost() && process != null) {
            stopper.stopInBackground(process, true);
        }
    }
}
