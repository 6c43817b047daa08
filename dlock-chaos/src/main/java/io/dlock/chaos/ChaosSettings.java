package io.dlock.chaos;

import io.dlock.TuningSettings;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What one run does.
 *
 * @param duration         how long the nemesis injects faults (set-up and the final checks come on top)
 * @param seed             seeds the nemesis' choices and the workers' randomness; a run is logged with it
 * @param workers          worker JVMs contending for the lock at any time
 * @param threads          lock loops (threads, each an owner) per lock kind in every worker JVM
 * @param localHandoffs    the workers' {@code TuningSettings.Builder#localHandoffs}: how many times in a row a lock
 *                         may pass between owners of one client without a release in Redis (0 = never)
 * @param watchdogMs       the workers' watchdog timeout: the lease of a hold
 * @param commandTimeoutMs the workers' command timeout: how soon a silent Redis becomes a LockException
 * @param stepMaxMs        the longest sleep of one step of a critical section (a hold has one to three); shorter
 *                         steps mean more lock operations per minute
 * @param outDir           where the event logs, worker output and the report go
 * @param strict           whether a violation that shows a {@link KnownDefect} fails the run too
 */
public record ChaosSettings(Duration duration, long seed, int workers, int threads, int localHandoffs,
                            long watchdogMs, long commandTimeoutMs, long stepMaxMs, Path outDir, boolean strict) {
    public static final int DEFAULT_WORKERS = 3;
    /** Enough owners per client that local hand-offs happen all the time, on every lock kind. */
    public static final int DEFAULT_THREADS = 3;
    /** The client's own default: the suite tests the configuration users get. */
    public static final int DEFAULT_LOCAL_HANDOFFS = TuningSettings.DEFAULT_LOCAL_HANDOFFS;
    public static final long DEFAULT_WATCHDOG_MS = 2000;
    /** Below a third of the watchdog, as {@code LockClientConfig} requires. */
    public static final long DEFAULT_COMMAND_TIMEOUT_MS = 600;
    public static final long DEFAULT_STEP_MAX_MS = 80;
    /** The short mode run by {@code mvn verify}: every fault kind at least once. */
    public static final Duration SHORT = Duration.ofSeconds(60);

    public ChaosSettings {
        if (workers < 2) {
            throw new IllegalArgumentException("workers must be at least 2: " + workers);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        if (localHandoffs < 0) {
            throw new IllegalArgumentException("localHandoffs must not be negative: " + localHandoffs);
        }
        if (stepMaxMs < 2) {
            throw new IllegalArgumentException("stepMaxMs must be at least 2: " + stepMaxMs);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive: " + duration);
        }
    }

    /** The bound on how long after a fault its effects may last: a lease, plus one second. */
    public long graceMs() {
        return watchdogMs + 1000;
    }

    /** The checker's bounds for this run. */
    public Checker.Bounds bounds() {
        return new Checker.Bounds(watchdogMs, graceMs(), Worker.LISTENER_WAIT_MS,
                Worker.WAIT_MS + 4 * commandTimeoutMs + 3000);
    }
}
