package io.dlock.cli;

import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockException;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One {@code dlock run} from start to exit code: acquire, run the command, release; with a JVM shutdown hook so that
 * a signal (or any exit) stops the command and releases the lock on the way out.
 *
 * <p>Two threads may want to end the run: the main thread (command ended, lock busy, failure) and the shutdown hook
 * (signal). {@link RunState} orders their view of the acquisition and the command: once the hook has stopped the run,
 * the main thread leaves everything to it and waits for the JVM to halt. {@link #finish()} (stop listening, release,
 * close) runs once, under its own monitor, so whoever comes second waits for it to be done.
 *
 * <p>The parts: {@link RunHold} (the lock held for this process's pid, {@link LockHold}, or a semaphore permit,
 * {@link PermitHold}), {@link CommandLaunch} (the command and its
 * guards), {@link LeaseLossHandler} (the hold ending while the command runs), {@link CommandStopper} (stopping the
 * command in time), {@link RunMessages} (what dlock says on stderr).
 */
final class LockedRun {
    private final LockClient client;
    private final RunSettings settings;
    private final List<String> command;
    private final RunHold hold;
    private final RunMessages messages;
    private final RunState state = new RunState();
    private final CommandStopper stopper;
    private final LeaseLossHandler lossHandler;

    private final Object finishing = new Object();
    private boolean finished; // guarded by finishing

    LockedRun(LockClient client, RunHold hold, RunSettings settings, List<String> command, PrintStream err) {
        this.client = client;
        this.settings = settings;
        this.command = List.copyOf(command);
        this.hold = hold;
        this.messages = new RunMessages(settings, hold, err);
        this.stopper = new CommandStopper(settings, hold, state);
        this.lossHandler = new LeaseLossHandler(settings, hold, state, stopper, messages);
    }

    /** @return the exit code of {@code dlock run} */
    int run() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::onShutdown, "dlock-run-shutdown"));
        client.addLeaseLostListener(lossHandler);
        if (!acquire()) {
            String holder = hold.holderPhrase();
            finish();
            messages.busy(holder);
            return settings.conflictExitCode();
        }
        messages.acquired(hold.acquiredAs());
        return runCommand();
    }

    /** @return whether the lock is held; throws CliException (after finishing) when the attempt failed */
    private boolean acquire() {
        CompletableFuture<Boolean> attempt = state.attempt(() -> hold.acquire(settings.waitTime(), settings.lease()));
        if (attempt == null) {
            awaitHalt();
        }
        boolean acquired;
        try {
            acquired = attempt.get();
        } catch (CancellationException | InterruptedException e) {
            awaitHalt(); // only the shutdown hook cancels
            return false;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            finish();
            if (cause instanceof LockException failure) {
                throw new CliException(ExitCodes.of(failure), cause.getMessage(), cause);
            }
            throw new CliException(ExitCodes.SOFTWARE, "cannot acquire " + hold.words().waitedFor() + ": " + cause, cause);
        }
        if (!state.acquired(acquired)) {
            awaitHalt();
        }
        return acquired;
    }

    /** With the hold: the command's exit code, or 76 when it was stopped because the hold ended or was lost. */
    private int runCommand() {
        long validFor = settings.killOnLeaseLost() ? hold.validForNanos() : Long.MAX_VALUE;
        boolean tooLate = settings.stop().termInNanos(validFor) <= 0;
        CommandLaunch launch = tooLate ? null : state.launch(settings.killOnLeaseLost(),
                () -> CommandLaunch.start(command, settings, hold, lossHandler::onStopTime, messages));
        boolean stopped = state.isStopping();
        if (tooLate && !stopped) {
            messages.tooLittleTime(validFor);
        }
        if (stopped) {
            awaitHalt();
        }
        Process process = launch == null ? null : launch.process();
        if (process == null) {
            finish();
            if (launch == null) { // the lease was lost or too short before the command could start
                return ExitCodes.LEASE_LOST;
            }
            throw launch.startFailure();
        }
        int code = ProcessTree.waitFor(process);
        if (launch.guard() != null) {
            launch.guard().close();
        }
        // the orphan guard stopped it while dlock could not (SIGSTOP); dlock may have renewed since it runs again
        OrphanGuard orphans = launch.orphans();
        boolean stoppedByGuard = settings.killOnLeaseLost() && code > 128
                && (orphans != null && orphans.stoppedTheCommand()
                        || settings.stop().termInNanos(hold.validForNanos()) <= 0);
        if (stoppedByGuard && state.stoppedByOrphanGuard(hold.expired())) {
            messages.stoppedByOrphanGuard();
        }
        boolean leaseLossStop = state.stoppedForLeaseLoss();
        if (state.isStopping()) {
            awaitHalt();
        }
        finish();
        messages.commandExited(code);
        return leaseLossStop ? ExitCodes.LEASE_LOST : code;
    }

    /** The shutdown hook: abandon the wait or stop the command, then release and close. */
    private void onShutdown() {
        state.stop();
        CompletableFuture<Boolean> attempt = state.pendingAttempt();
        Process process = state.child();
        synchronized (finishing) {
            if (finished) {
                return;
            }
        }
        if (process != null) {
            if (process.isAlive()) {
                messages.stoppingOnSignal();
                stopper.stop(process, false);
            }
        } else if (attempt != null) {
            if (attempt.cancel(false)) {
                if (hold.heldAfterAbandonedWait()) {
                    state.markHeld();
                }
            } else if (!attempt.isCompletedExceptionally() && Boolean.TRUE.equals(attempt.join())) {
                state.markHeld();
            }
        }
        finish();
    }

    /** Stops listening, releases the hold if there is one, closes the client; once. */
    private void finish() {
        synchronized (finishing) {
            if (finished) {
                return;
            }
            finished = true;
            state.end();
            client.removeLeaseLostListener(lossHandler);
            LeaseGuard leaseGuard = state.guard();
            OrphanGuard orphans = state.orphans();
            if (leaseGuard != null) {
                leaseGuard.close();
            }
            if (orphans != null) {
                orphans.done(); // the command has ended: finish() runs after waitFor() or terminate()
            }
            LeaseLostEvent lost = state.lost();
            if (state.takeHeld()) {
                hold.release(lost, messages);
            }
            client.close();
        }
    }

    /** The shutdown hook owns the rest of this run: wait (holding no monitor) for the JVM to halt. */
    private static void awaitHalt() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // keep waiting: the JVM halts once the shutdown hooks are done
            }
        }
    }
}
