package io.dlock.cli;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The start of the command of a {@code dlock run} with the guards that stop it in time: with
 * {@code --on-lease-lost kill}, the {@link OrphanGuard} starts first and gets its first deadlines before the command
 * starts (so a dlock stopped at any moment leaves one behind), and a {@link LeaseGuard} watches the hold once the
 * command runs. The command gets dlock's stdin, stdout and stderr and the {@link ChildEnvironment}.
 */
final class CommandLaunch {
    private static final Pattern ERRNO = Pattern.compile("error=(\\d+), (.*)");

    private final List<String> command;
    private final Process process;
    private final IOException failure;
    private final OrphanGuard orphans;
    private final LeaseGuard guard;

    private CommandLaunch(List<String> command, Process process, IOException failure, OrphanGuard orphans,
                          LeaseGuard guard) {
        this.command = command;
        this.process = process;
        this.failure = failure;
        this.orphans = orphans;
        this.guard = guard;
    }

    /**
     * Starts the guards and the command; a command that cannot be started is a launch without a process (its
     * orphan guard, if any, still to be told {@link OrphanGuard#done()}).
     *
     * @param onStopTime the lease guard's call when the command must be stopped
     */
    static CommandLaunch start(List<String> command, RunSettings settings, RunHold hold, LongConsumer onStopTime,
                               RunMessages messages) {
        Map<String, String> env = ChildEnvironment.of(System.getenv());
        Map<String, String> childEnv = new HashMap<>(env);
        childEnv.putAll(hold.environment());
        OrphanGuard orphans = null;
        if (settings.killOnLeaseLost()) {
            String token = UUID.randomUUID().toString();
            childEnv.put(OrphanGuard.TOKEN, token);
            orphans = OrphanGuard.start(hold.words().held(), settings.killAfter(), env, token, messages.stream());
        }
        if (orphans != null) {
            long validFor = hold.validForNanos();
            long half = settings.stop().margin().toNanos() / 2;
            orphans.deadlines(settings.stop().termInNanos(validFor) + half, settings.stop().killInNanos(validFor));
        }
        Process process = null;
        IOException failure = null;
        try {
            ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
            builder.environment().clear();
            builder.environment().putAll(childEnv);
            process = builder.start();
        } catch (IOException e) {
            failure = e;
        }
        LeaseGuard guard = null;
        if (process != null && settings.killOnLeaseLost()) {
            if (orphans != null) {
                orphans.watch(process.pid());
            }
            guard = hold.guard(settings.stop(), orphans, onStopTime);
            guard.start();
        }
        return new CommandLaunch(List.copyOf(command), process, failure, orphans, guard);
    }

    /** The command, or null when it could not be started. */
    Process process() {
        return process;
    }

    /** Null without {@code --on-lease-lost kill}, or when bash could not be started. */
    OrphanGuard orphans() {
        return orphans;
    }

    /** Null unless the command runs with {@code --on-lease-lost kill}. */
    LeaseGuard guard() {
        return guard;
    }

    /** Why the command could not be started, with the exit code a shell would give: 127 not found, else 126. */
    CliException startFailure() {
        String message = String.valueOf(failure.getMessage());
        Matcher m = ERRNO.matcher(message);
        boolean errno = m.find();
        String reason = errno ? m.group(2) : message;
        int code = errno && m.group(1).equals("2") ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
        return new CliException(code, "cannot run '" + command.get(0) + "': " + reason, failure);
    }
}
