package io.dlock.redisprocess;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Unix signals to processes (with the {@code kill} command) and waits on their effect. */
final class Signals {
    static final Duration SIGNAL_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

    private Signals() {
    }

    /**
     * Sends {@code SIG<name>} to {@code pid} with the {@code kill} command; blocks until it ran (at most 5 s).
     *
     * @throws IllegalStateException when no {@code kill} command is found, or it fails or hangs
     */
    static void signal(String name, long pid) {
        List<List<String>> commands = List.of(
                List.of("kill", "-" + name, Long.toString(pid)),
                List.of("/bin/sh", "-c", "kill -" + name + " " + pid));
        IOException notFound = null;
        for (List<String> command : commands) {
            Process k;
            try {
                k = new ProcessBuilder(command).redirectErrorStream(true).start();
            } catch (IOException e) {
                notFound = e;
                continue;
            }
            try (InputStream out = k.getInputStream()) {
                k.getOutputStream().close();
                String output = new String(out.readAllBytes(), StandardCharsets.UTF_8).strip();
                if (!k.waitFor(SIGNAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    k.destroyForcibly();
                    throw new IllegalStateException(command + " did not finish");
                }
                if (k.exitValue() != 0) {
                    throw new IllegalStateException(command + " failed with code " + k.exitValue() + ": " + output);
                }
                return;
            } catch (IOException e) {
                throw new IllegalStateException(command + " failed: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running " + command, e);
            }
        }
        throw new IllegalStateException("cannot send SIG" + name + ": no kill command found", notFound);
    }

    /** As {@link #signal}, logging a failure at debug level instead of throwing. */
    static void signalQuietly(String name, long pid) {
        try {
            signal(name, pid);
        } catch (RuntimeException e) {
            LOG.debug("SIG{} to {} failed", name, pid, e);
        }
    }

    /**
     * On Linux, waits (at most 5 s) until /proc says the process is (or is no longer) stopped. Elsewhere returns.
     *
     * @throws IllegalStateException when the state does not change in time
     */
    static void awaitStopState(long pid, boolean stopped) {
        Path stat = Paths.get("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        long deadline = System.nanoTime() + SIGNAL_TIMEOUT.toNanos();
        while (true) {
            String content = ServerFiles.readQuietly(stat, 0);
            int close = content.lastIndexOf(')');
            if (close < 0 || close + 2 >= content.length()) {
                return; // gone, or unreadable
            }
            char state = content.charAt(close + 2);
            if ((state == 'T' || state == 't') == stopped) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("process " + pid + " is in state " + state + " after SIG"
                        + (stopped ? "STOP" : "CONT"));
            }
            sleepUninterruptibly(1);
        }
    }

    /** SIGKILL, then waits until the process has exited, even when interrupted (the interrupt flag is kept). */
    static void destroyForciblyAndWait(Process p) {
        p.destroyForcibly();
        boolean interrupted = false;
        while (true) {
            try {
                p.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps; an interrupt ends the sleep early and the interrupt flag is kept. */
    static void sleepUninterruptibly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
