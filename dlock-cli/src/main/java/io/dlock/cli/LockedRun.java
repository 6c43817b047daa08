package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockInfo;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code dlock run}: acquire, run the command, release; with a JVM shutdown hook so that a signal (or any exit)
 * stops the command and releases the lock on the way out.
 *
 * <p>The hold belongs to owner id = this process's pid, through the async API with an explicit owner, so the main
 * thread, the shutdown hook and the lease-lost listener can all act on it.
 *
 * <p>Two threads may want to end the run: the main thread (command ended, lock busy, failure) and the shutdown hook
 * (signal). {@code state} orders their view of the acquisition and the child process: once the hook set
 * {@code stopping}, the main thread leaves everything to it and waits for the JVM to halt. {@link #finish()} (stop
 * listening, release, close) runs once, under its own monitor, so whoever comes second waits for it to be done.
 */
final class LockedRun {
    private static final Pattern ERRNO = Pattern.compile("error=(\\d+), (.*)");
    private static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(5);

    /**
     * @param lease null for the watchdog
     * @param stop  when the lease forces the command to stop (and {@code killAfter} for any stop)
     */
    record Settings(String lockName, Duration waitTime, Duration lease, boolean killOnLeaseLost, StopPlan stop,
                    int conflictExitCode, boolean quiet, boolean verbose) {
        Duration killAfter() {
            return stop.killAfter();
        }
    }

    private final LockClient client;
    private final DistributedLock lock;
    private final Settings settings;
    private final List<String> command;
    private final PrintStream err;
    private final long ownerId = ProcessHandle.current().pid();
    private final LeaseLostListener listener = this::onLeaseLost;

    private final Object state = new Object();
    private boolean stopping;                      // guarded by state
    private CompletableFuture<Boolean> acquiring;  // guarded by state
    private boolean held;                          // guarded by state
    private Process child;                         // guarded by state
    private LeaseLostEvent lost;                   // guarded by state
    private boolean stoppedForLeaseLoss;           // guarded by state

    private LeaseGuard guard;                      // guarded by state
    private OrphanGuard orphans;                   // guarded by state

    private final Object finishing = new Object();
    private boolean finished;                      // guarded by finishing
    private volatile boolean ended;                // finish() has begun: lease events no longer matter

    LockedRun(LockClient client, DistributedLock lock, Settings settings, List<String> command, PrintStream err) {
        this.client = client;
        this.lock = lock;
        this.settings = settings;
        this.command = List.copyOf(command);
        this.err = err;
    }

    /** @return the exit code of {@code dlock run} */
    int run() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::onShutdown, "dlock-run-shutdown"));
        client.addLeaseLostListener(listener);
        if (!acquire()) {
            String holder;
            try {
                holder = LockInfoFormat.holderPhrase(client.inspect(settings.lockName()));
            } catch (RuntimeException e) {
                holder = "holder unknown (" + e.getMessage() + ")";
            }
            finish();
            if (!settings.quiet()) {
                Duration wait = settings.waitTime();
                err.println(wait == null || wait.isZero()
                        ? "dlock: lock '" + settings.lockName() + "' is busy: " + holder
                        : "dlock: timed out after " + DurationText.format(wait) + " waiting for lock '"
                                + settings.lockName() + "': " + holder);
            }
            return settings.conflictExitCode();
        }
        if (settings.verbose()) {
            err.println("dlock: acquired lock '" + settings.lockName() + "' as " + client.getId() + ":" + ownerId);
        }
        long validFor = settings.killOnLeaseLost() ? LeaseGuard.validForNanos(lock, ownerId) : Long.MAX_VALUE;
        Process process = null;
        IOException startFailure = null;
        boolean stopped;
        boolean tooLate = settings.stop().termInNanos(validFor) <= 0;
        synchronized (state) {
            stopped = stopping;
            if (!stopped && !tooLate && (lost == null || !settings.killOnLeaseLost())) {
                Map<String, String> env = ChildEnvironment.of(System.getenv());
                Map<String, String> childEnv = new HashMap<>(env);
                if (settings.killOnLeaseLost()) {
                    String token = UUID.randomUUID().toString();
                    childEnv.put(OrphanGuard.TOKEN, token);
                    orphans = OrphanGuard.start(settings.lockName(), settings.killAfter(), env, token, err);
                }
                if (orphans != null) { // first deadlines before the start: a stopped dlock always leaves one
                    validFor = LeaseGuard.validForNanos(lock, ownerId);
                    long half = settings.stop().margin().toNanos() / 2;
                    orphans.deadlines(settings.stop().termInNanos(validFor) + half,
                            settings.stop().killInNanos(validFor));
                }
                try {
                    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
                    builder.environment().clear();
                    builder.environment().putAll(childEnv);
                    process = builder.start();
                } catch (IOException e) {
                    startFailure = e;
                }
                if (process != null && settings.killOnLeaseLost()) {
                    if (orphans != null) {
                        orphans.watch(process.pid());
                    }
                    guard = new LeaseGuard(lock, ownerId, settings.stop(), orphans, this::onStopTime);
                    guard.start();
                }
            }
            child = process;
        }
        if (tooLate && !stopped) {
            err.println("dlock: lock '" + settings.lockName() + "' is valid for only "
                    + DurationText.formatMillis(validFor / 1_000_000) + ", too little to run the command and stop it "
                    + "in time; not running it");
        }
        if (stopped) {
            awaitHalt();
        }
        if (process == null) {
            finish();
            if (startFailure == null) { // the lease was lost or too short before the command could start
                return ExitCodes.LEASE_LOST;
            }
            throw startFailure(startFailure);
        }
        int code = waitFor(process);
        LeaseGuard leaseGuard;
        synchronized (state) {
            leaseGuard = guard;
        }
        if (leaseGuard != null) {
            leaseGuard.close();
        }
        // the orphan guard stopped it while dlock could not (SIGSTOP); dlock may have renewed since it runs again
        OrphanGuard orphanGuard;
        synchronized (state) {
            orphanGuard = orphans;
        }
        boolean stoppedByGuard = settings.killOnLeaseLost() && code > 128
                && (orphanGuard != null && orphanGuard.stoppedTheCommand()
                        || settings.stop().termInNanos(LeaseGuard.validForNanos(lock, ownerId)) <= 0);
        boolean leaseLossStop;
        boolean report = false;
        synchronized (state) {
            stopped = stopping;
            if (stoppedByGuard && !stopped && !stoppedForLeaseLoss) {
                report = lost == null;
                if (report) {
                    lost = new LeaseLostEvent(settings.lockName(), ownerId, LeaseLostEvent.Reason.EXPIRED,
                            Instant.now());
                }
                stoppedForLeaseLoss = true;
            }
            leaseLossStop = stoppedForLeaseLoss;
        }
        if (report) {
            err.println("dlock: could not renew lock '" + settings.lockName() + "' in time (stopped?): the "
                    + "command was stopped before the lease could end");
        }
        if (stopped) {
            awaitHalt();
        }
        finish();
        if (settings.verbose()) {
            err.println("dlock: command exited with " + code);
        }
        return leaseLossStop ? ExitCodes.LEASE_LOST : code;
    }

    /** @return whether the lock is held; throws CliException (after finishing) when the attempt failed */
    private boolean acquire() {
        long waitMs = settings.waitTime() == null ? DistributedLock.WAIT_FOREVER : settings.waitTime().toMillis();
        long leaseMs = settings.lease() == null ? DistributedLock.LEASE_WATCHDOG : settings.lease().toMillis();
        CompletableFuture<Boolean> attempt = null;
        boolean stopped;
        synchronized (state) {
            stopped = stopping;
            if (!stopped) {
                attempt = lock.tryLockAsync(waitMs, leaseMs, TimeUnit.MILLISECONDS, ownerId);
                acquiring = attempt;
            }
        }
        if (stopped) {
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
            if (cause instanceof LockException) {
                throw new CliException(ExitCodes.UNAVAILABLE, cause.getMessage(), cause);
            }
            throw new CliException(ExitCodes.SOFTWARE, "cannot acquire lock '" + settings.lockName() + "': "
                    + cause, cause);
        }
        synchronized (state) {
            stopped = stopping;
            if (!stopped) {
                held = acquired;
            }
        }
        if (stopped) {
            awaitHalt();
        }
        return acquired;
    }

    private CliException startFailure(IOException e) {
        String message = String.valueOf(e.getMessage());
        Matcher m = ERRNO.matcher(message);
        boolean errno = m.find();
        String reason = errno ? m.group(2) : message;
        int code = errno && m.group(1).equals("2") ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
        return new CliException(code, "cannot run '" + command.get(0) + "': " + reason, e);
    }

    /**
     * The lease guard's call: the hold ends in {@code validForNanos}, so the command must be stopped now to have
     * ended before then (SIGKILL no later than the plan's kill time).
     */
    private void onStopTime(long validForNanos) {
        Process process;
        synchronized (state) {
            if (lost != null || stopping || child == null || !child.isAlive()) {
                return; // (a command that has ended meanwhile is judged by run())
            }
            lost = new LeaseLostEvent(settings.lockName(), ownerId, LeaseLostEvent.Reason.EXPIRED, Instant.now());
            process = child;
            stoppedForLeaseLoss = process != null && process.isAlive();
        }
        err.println("dlock: lock '" + settings.lockName() + "' is about to be lost while the command is running: "
                + (validForNanos > 0 ? "its lease ends in " + DurationText.formatMillis(validForNanos / 1_000_000)
                        : "its lease has ended")
                + (settings.lease() == null ? " (not renewed)" : "") + "; stopping the command");
        if (process != null) {
            stopInBackground(process, stopGrace(false));
        }
    }

    /**
     * dlock is stopping the command itself: the orphan guard keeps only a SIGKILL at dlock's SIGKILL time, so that
     * the command does not get a second SIGTERM from it.
     *
     * @param holdGone the library reported the hold lost (removed, renewals failed): nothing to stay within, the
     *                 command gets its whole --kill-after
     * @return the grace between dlock's SIGTERM and SIGKILL: --kill-after, cut so that SIGKILL comes before the hold
     * can expire
     */
    private Duration stopGrace(boolean holdGone) {
        OrphanGuard orphanGuard;
        synchronized (state) {
            orphanGuard = orphans;
        }
        if (!settings.killOnLeaseLost()) {
            return settings.killAfter();
        }
        long killIn = settings.stop().killInNanos(LeaseGuard.validForNanos(lock, ownerId));
        Duration grace = holdGone ? settings.killAfter()
                : Duration.ofNanos(Math.max(0, Math.min(killIn, settings.killAfter().toNanos())));
        if (orphanGuard != null) {
            orphanGuard.deadlines(grace.toNanos(), grace.toNanos());
        }
        return grace;
    }

    private void stopInBackground(Process process, Duration grace) {
        Thread stopper = new Thread(() -> terminate(process, grace), "dlock-stop-command");
        stopper.setDaemon(true);
        stopper.start();
    }

    private void onLeaseLost(LeaseLostEvent event) {
        if (ended || event.ownerId() != ownerId
                || !(event.lockName().equals(lock.getName()) || event.lockName().equals(settings.lockName()))) {
            return;
        }
        Process process;
        synchronized (state) {
            if (lost != null) {
                return;
            }
            lost = event;
            process = child;
            stoppedForLeaseLoss = settings.killOnLeaseLost() && process != null && process.isAlive();
        }
        String what = "lost lock '" + settings.lockName() + "' while the command was running: " + why(event);
        if (settings.killOnLeaseLost()) {
            err.println("dlock: " + what + "; stopping the command");
            if (process != null) {
                stopInBackground(process, stopGrace(true));
            }
        } else {
            err.println("dlock: warning: " + what + "; the command keeps running (--on-lease-lost warn)");
        }
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

    /** The shutdown hook: abandon the wait or stop the command, then release and close. */
    private void onShutdown() {
        CompletableFuture<Boolean> attempt;
        Process process;
        synchronized (state) {
            stopping = true;
            attempt = acquiring;
            process = child;
        }
        synchronized (finishing) {
            if (finished) {
                return;
            }
        }
        if (process != null) {
            if (process.isAlive()) {
                if (settings.verbose()) {
                    err.println("dlock: stopping the command and releasing lock '" + settings.lockName() + "'");
                }
                terminate(process, stopGrace(false));
            }
        } else if (attempt != null) {
            if (attempt.cancel(false)) {
                cleanUpAbandonedAttempt();
            } else if (!attempt.isCompletedExceptionally() && Boolean.TRUE.equals(attempt.join())) {
                synchronized (state) {
                    held = true;
                }
            }
        }
        finish();
    }

    /**
     * A cancelled wait is undone by the library asynchronously (a late acquisition released, a fair-queue entry
     * removed); give that a moment, bounded, and release ourselves what is still there.
     */
    private void cleanUpAbandonedAttempt() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() < deadline) {
            LockInfo info;
            try {
                info = client.inspect(settings.lockName());
            } catch (RuntimeException e) {
                return;
            }
            boolean holding = info.holders().stream()
                    .anyMatch(h -> h.clientId().equals(client.getId()) && h.threadId() == ownerId);
            if (holding) {
                synchronized (state) {
                    held = true;
                }
                return;
            }
            boolean queued = info.waiters().stream()
                    .anyMatch(w -> w.clientId().equals(client.getId()) && w.threadId() == ownerId);
            if (!queued) {
                return;
            }
            sleep(20);
        }
    }

    /** Stops listening, releases the hold if there is one, closes the client; once. */
    private void finish() {
        synchronized (finishing) {
            if (finished) {
                return;
            }
            finished = true;
            ended = true;
            client.removeLeaseLostListener(listener);
            LeaseGuard leaseGuard;
            OrphanGuard orphanGuard;
            synchronized (state) {
                leaseGuard = guard;
                orphanGuard = orphans;
            }
            if (leaseGuard != null) {
                leaseGuard.close();
            }
            if (orphanGuard != null) {
                orphanGuard.done(); // the command has ended: finish() runs after waitFor() or terminate()
            }
            boolean release;
            LeaseLostEvent lostEvent;
            synchronized (state) {
                release = held;
                held = false;
                lostEvent = lost;
            }
            if (release) {
                release(lostEvent);
            }
            client.close();
        }
    }

    private void release(LeaseLostEvent lostEvent) {
        String name = settings.lockName();
        try {
            lock.unlockAsync(ownerId).get(RELEASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (settings.verbose()) {
                err.println("dlock: released lock '" + name + "'");
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalMonitorStateException) {
                if (lostEvent == null) {
                    err.println("dlock: warning: lock '" + name + "' was no longer held when the command ended "
                            + "(its lease was lost)");
                }
            } else {
                err.println("dlock: warning: could not release lock '" + name + "': " + cause.getMessage()
                        + "; it expires when its lease ends");
            }
        } catch (TimeoutException e) {
            err.println("dlock: warning: could not release lock '" + name + "' within "
                    + DurationText.format(RELEASE_TIMEOUT) + "; it expires when its lease ends");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("dlock: warning: interrupted while releasing lock '" + name + "'");
        }
    }

    /**
     * SIGTERM to the process and its descendants (as a terminal's Ctrl-C reaches the whole foreground job); SIGKILL to
     * whatever still runs after {@code grace}. Descendants get at most a second after the process itself ended.
     */
    static void terminate(Process process, Duration grace) {
        List<ProcessHandle> tree = process.descendants().toList();
        process.destroy();
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        boolean interrupted = false;
        try {
            process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            long treeDeadline = Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
            while (tree.stream().anyMatch(LockedRun::running) && System.nanoTime() < treeDeadline) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        tree.stream().filter(LockedRun::running).forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Alive and not a zombie (a dead process nobody reaped yet; containers without an init leave those). */
    private static boolean running(ProcessHandle handle) {
        if (!handle.isAlive()) {
            return false;
        }
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(handle.pid()),
                    "stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            return handle.isAlive(); // not Linux, or gone meanwhile
        }
    }

    private static int waitFor(Process process) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return process.waitFor();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
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

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
