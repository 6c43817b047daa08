package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@code dlock run}: the command-line parsing; {@link LockedRun} does the work. */
@Command(name = "run",
        header = "Run a command while holding a lock.",
        synopsisHeading = "%nUsage: ",
        customSynopsis = {"dlock run [OPTIONS] LOCK [--] COMMAND [ARGS...]",
            "       dlock run --permits N [OPTIONS] SEMAPHORE [--] COMMAND [ARGS...]"},
        description = {
            "",
            "Acquires LOCK (waiting as --wait says), runs COMMAND with its arguments directly (no shell; use "
                    + "sh -c '...' for shell syntax) with dlock's stdin, stdout and stderr, releases the lock when "
                    + "COMMAND ends, and exits with COMMAND's exit code. Options go before LOCK; everything after "
                    + "LOCK (an optional -- first) is the command, as with flock(1).",
            "",
            "While the command runs, a watchdog renews the lease every third of --watchdog (default 30s), so a "
                    + "crashed host blocks others for at most that long; with --lease the hold simply expires after "
                    + "that time. With --on-lease-lost kill (the default) the command is stopped early enough to "
                    + "have ended before the hold can expire: SIGTERM at (end of the lease - --kill-after - margin), "
                    + "SIGKILL at (end - margin), margin = 250ms + 2%% of the lease; dlock then exits 76. The same "
                    + "happens when the hold is lost (force-unlocked, Redis unreachable). A guard process stops the "
                    + "command also when dlock is killed (SIGKILL) or stopped (SIGSTOP).",
            "",
            "On SIGINT or SIGTERM dlock sends SIGTERM to the command and its descendants (SIGKILL after "
                    + "--kill-after), releases the lock, and exits 130 or 143. A pending wait is abandoned cleanly.",
            "",
            "The hold is written as <client id>:<pid of this dlock process>, which `dlock status` shows.",
            "",
            "With --permits N, LOCK names a semaphore of N leased permits (created with N when absent; one with "
                    + "another number of permits is refused, exit 78) and the command runs under one of them: at "
                    + "most N such runs at once, across hosts. The permit has the same lease, watchdog and "
                    + "lease-lost handling as a lock; its id is in $DLOCK_PERMIT_ID and `dlock status --semaphore "
                    + "LOCK` lists it.",
        },
        parameterListHeading = "%nParameters:%n",
        optionListHeading = "%nOptions:%n")
final class RunCommand extends BaseCommand {

    /** What to do when the lease is lost while the command runs. */
    enum OnLeaseLost { kill, warn }

    @Option(names = {"-w", "--wait"}, paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "How long to wait for the lock: 0 = one attempt (like flock -n); default: forever. "
                    + "500ms, 10s, 2m, 1h, PT5S, or a number of seconds.")
    Duration wait;

    @Option(names = {"-l", "--lease"}, paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "A fixed lease instead of the watchdog: the hold expires after DURATION even if the "
                    + "command still runs (then --on-lease-lost applies).")
    Duration lease;

    @Option(names = "--watchdog", paramLabel = "DURATION", defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            description = "The watchdog lease, renewed every third of it while the command runs; how long the "
                    + "lock outlives a crashed dlock (default: ${DEFAULT-VALUE}).")
    Duration watchdog;

    @Option(names = "--fair", description = "Use a fair lock: waiters get it in the order they asked for it.")
    boolean fair;

    @Option(names = "--read", description = "Take the read (shared) side of a read-write lock.")
    boolean read;

    @Option(names = "--write", description = "Take the write (exclusive) side of a read-write lock.")
    boolean write;

    @Option(names = {"-p", "--permits"}, paramLabel = "N",
            description = "Run under one permit of a semaphore of N leased permits (at most N runs at once) instead "
                    + "of a lock; the semaphore is created with N permits when absent. Not with --fair, --read, "
                    + "--write.")
    Integer permits;

    @Option(names = {"-E", "--conflict-exit-code"}, paramLabel = "CODE",
            description = "Exit code when the lock cannot be had within --wait (default: 75), as flock -E.")
    Integer conflictExitCode;

    @Option(names = "--on-lease-lost", paramLabel = "kill|warn", defaultValue = "kill",
            description = "kill: stop the command (SIGTERM, then SIGKILL after --kill-after) and exit 76; "
                    + "warn: only say so and let it finish (default: ${DEFAULT-VALUE}).")
    OnLeaseLost onLeaseLost;

    @Option(names = "--kill-after", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "When stopping the command, send SIGKILL if it is still running after DURATION "
                    + "(default: 10s, or a third of the lease when that is less; at most a third of the lease).")
    Duration killAfter;

    @Option(names = {"-q", "--quiet"}, description = "Say nothing when the lock is busy (exit code only).")
    boolean quiet;

    @Parameters(index = "0", paramLabel = "LOCK", description = "The lock's name (its Redis key); with --permits, "
            + "the semaphore's.")
    String lockName;

    @Parameters(index = "1..*", paramLabel = "COMMAND", arity = "0..*",
            description = "The command to run, and its arguments.")
    List<String> command = new ArrayList<>();

    /** A lease must leave time to run the command and still stop it (SIGTERM, then SIGKILL) before it ends. */
    private static void minimumLease(Duration value, String option) {
        if (value != null && value.compareTo(StopPlan.MIN_LEASE) < 0) {
            throw CliException.usage(option + " must be at least " + DurationText.format(StopPlan.MIN_LEASE)
                    + ", time to run the command and stop it before the lease ends: " + DurationText.format(value)
                    + (value.isZero() ? " (rounded to whole milliseconds)" : ""));
        }
    }

    @Override
    public Integer call() {
        List<String> cmd = new ArrayList<>(command);
        if (!cmd.isEmpty() && cmd.get(0).equals("--")) {
            cmd.remove(0);
        }
        if (lockName.isBlank()) {
            throw CliException.usage("the lock name is blank");
        }
        if (cmd.isEmpty()) {
            throw CliException.usage("missing command after the lock name (dlock run [OPTIONS] LOCK -- COMMAND "
                    + "[ARGS...])");
        }
        if (cmd.get(0).startsWith("-")) {
            throw CliException.usage("options go before the lock name: '" + cmd.get(0) + "' (dlock run [OPTIONS] "
                    + "LOCK -- COMMAND [ARGS...])");
        }
        if (read && write) {
            throw CliException.usage("--read and --write exclude each other");
        }
        if (fair && (read || write)) {
            throw CliException.usage("--fair cannot be combined with --read or --write (there is no fair "
                    + "read-write lock)");
        }
        if (permits != null && permits < 1) {
            throw CliException.usage("--permits must be at least 1: " + permits);
        }
        if (permits != null && (fair || read || write)) {
            throw CliException.usage("--permits cannot be combined with --fair, --read or --write (a permit is "
                    + "neither)");
        }
        minimumLease(lease, "--lease");
        minimumLease(watchdog, "--watchdog");
        Duration leaseLength = lease != null ? lease : watchdog;
        if (killAfter != null && killAfter.compareTo(StopPlan.maxKillAfter(leaseLength)) > 0) {
            throw CliException.usage("--kill-after " + DurationText.format(killAfter) + " is too long for "
                    + (lease != null ? "--lease " : "--watchdog ") + DurationText.format(leaseLength)
                    + ": the command must have been stopped before the lease can end, so --kill-after may be at "
                    + "most a third of the lease (" + DurationText.format(StopPlan.maxKillAfter(leaseLength)) + ")");
        }
        if (conflictExitCode != null && (conflictExitCode < 0 || conflictExitCode > 255)) {
            throw CliException.usage("--conflict-exit-code must be between 0 and 255: " + conflictExitCode);
        }
        LockClient client = connect(b -> b.watchdogTimeout(watchdog));
        RunHold hold;
        try {
            hold = permits != null ? PermitHold.prepare(client, lockName, permits) : lockHold(client);
        } catch (RuntimeException e) {
            client.close();
            throw e instanceof IllegalArgumentException ? CliException.usage(e.getMessage())
                    : e instanceof LockException failure ? new CliException(ExitCodes.of(failure), e.getMessage(), e)
                    : e;
        }
        RunSettings settings = new RunSettings(lockName, wait, lease, onLeaseLost == OnLeaseLost.kill,
                StopPlan.of(leaseLength, killAfter), conflictExitCode == null ? ExitCodes.BUSY : conflictExitCode,
                quiet, Logging.isVerbose());
        return new LockedRun(client, hold, settings, cmd, err()).run();
    }

    private RunHold lockHold(LockClient client) {
        DistributedLock lock = fair ? client.getFairLock(lockName)
                : read ? client.getReadWriteLock(lockName).readLock()
                : write ? client.getReadWriteLock(lockName).writeLock()
                : client.getLock(lockName);
        return new LockHold(client, lock, lockName);
    }
}
