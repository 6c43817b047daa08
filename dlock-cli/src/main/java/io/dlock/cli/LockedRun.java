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
import java.util.List;
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

    record Settings(String lockName, Duration waitTime, Duration lease, boolean killOnLeaseLost, Duration killAfter,
                    int conflictExitCode, boolean quiet, boolean verbose) {
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
        if (settings.lease() != null) {
            watchLeaseEnd(System.nanoTime() + settings.lease().toNanos());
        }
        Process process = null;
        IOException startFailure = null;
        boolean stopped;
        synchronized (state) {
            stopped = stopping;
            if (!stopped && (lost == null || !settings.killOnLeaseLost())) {
                try {
                    process = new ProcessBuilder(command).inheritIO().start();
                } catch (IOException e) {
                    startFailure = e;
                }
            }
            child = process;
        }
        if (stopped) {
            awaitHalt();
        }
        if (process == null) {
            finish();
            if (startFailure == null) {
                return ExitCodes.LEASE_LOST;
            }
            throw startFailure(startFailure);
        }
        int code = waitFor(process);
        boolean leaseLossStop;
        synchronized (state) {
            stopped = stopping;
            leaseLossStop = stoppedForLeaseLoss;
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
     * A fixed lease cannot be renewed, so it is over when it ends; the client's renewer notices that only at its
     * next round (up to a third of the watchdog later), this timer at once.
     */
    private void watchLeaseEnd(long endNanos) {
        Thread timer = new Thread(() -> {
            long left;
            while (!ended && (left = endNanos - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(left);
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (!ended) {
                onLeaseLost(new LeaseLostEvent(settings.lockName(), ownerId, LeaseLostEvent.Reason.EXPIRED,
                        java.time.Instant.now()));
            }
        }, "dlock-lease-end");
        timer.setDaemon(true);
        timer.start();
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
                Thread stopper = new Thread(() -> terminate(process, settings.killAfter()), "dlock-stop-command");
                stopper.setDaemon(true);
                stopper.start();
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
                terminate(process, settings.killAfter());
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
