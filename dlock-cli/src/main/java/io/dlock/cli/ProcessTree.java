package io.dlock.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Ending and awaiting a process together with its descendants, as a terminal's Ctrl-C reaches a whole job. */
final class ProcessTree {
    private ProcessTree() {
    }

    /**
     * SIGTERM to the process and its descendants; SIGKILL to whatever still runs after {@code grace}. Descendants get
     * at most a second after the process itself ended. Returns once the process has ended (or after 5 s more);
     * keeps the caller's interrupt status.
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
            while (tree.stream().anyMatch(ProcessTree::running) && System.nanoTime() < treeDeadline) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        tree.stream().filter(ProcessTree::running).forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The exit code of {@code process}, waited for through interrupts (the interrupt status is kept). */
    static int waitFor(Process process) {
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

    /** Alive and not a zombie (a dead process nobody reaped yet; containers without an init leave those). */
    private static boolean running(ProcessHandle handle) {
        if (!handle.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(handle.pid()), "stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            return handle.isAlive(); // not Linux, or gone meanwhile
        }
    }
}
