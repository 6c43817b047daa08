package io.dlock.cli;

import java.time.Duration;

/**
 * What the command line of one {@code dlock run} asked for, checked by {@link RunCommand}.
 *
 * @param waitTime         null to wait for ever; zero for one attempt
 * @param lease            null for the watchdog
 * @param killOnLeaseLost  {@code --on-lease-lost kill}: stop the command when the hold ends or is lost
 * @param stop             when the lease forces the command to stop (and {@code killAfter} for any stop)
 * @param conflictExitCode the exit code when the lock cannot be had
 */
record RunSettings(String lockName, Duration waitTime, Duration lease, boolean killOnLeaseLost, StopPlan stop,
                   int conflictExitCode, boolean quiet, boolean verbose) {
    Duration killAfter() {
        return stop.killAfter();
    }
}
