package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.NotALockException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** {@code dlock leader}: who leads an election now, or every change of leader. */
@Command(name = "leader",
        header = "Show who leads a leader election (its fenced lock's holder, epoch and TTL); --watch: every change.",
        description = {
            "",
            "Reads the election's fenced lock NAME without changing it: the holder <client id>:<owner id> (a "
                    + "LeaderElection's own owner id), the epoch (the value of the fencing token counter "
                    + "redisson_lock_token:{NAME}: the leader's epoch) and the time to live; or 'no leader'. "
                    + "Exit 0 when a leader is shown, 1 when there is none.",
            "--watch prints a time-stamped line at the start and on every change of leader or epoch, until Ctrl-C: "
                    + "it re-reads every --interval (a leader that comes and goes between two reads is not shown). "
                    + "Epochs shown never go down: a read with an epoch below one shown before (a stale replica "
                    + "after a failover) is not printed.",
        },
        parameterListHeading = "%nParameters:%n",
        optionListHeading = "%nOptions:%n")
final class LeaderCommand extends BaseCommand {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);

    @Option(names = "--watch", description = "Print every change of leader until Ctrl-C.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "250ms",
            converter = Converters.DurationConverter.class,
            description = "--watch: how often to re-read (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Parameters(index = "0", paramLabel = "NAME", description = "The election's name (its fenced lock's).")
    String name;

    @Override
    public Integer call() throws InterruptedException {
        if (name.isBlank()) {
            throw CliException.usage("the name is blank");
        }
        atLeast(interval, Duration.ofMillis(10), "--interval");
        if (!watch) {
            try (LockClient client = connect()) {
                LeaderView view;
                try {
                    view = LeaderView.read(client, name);
                } catch (NotALockException e) {
                    throw new CliException(ExitCodes.FAILED, e.getMessage(), e);
                }
                out().println(view.line());
                out().flush();
                return view.hasLeader() ? ExitCodes.OK : ExitCodes.FAILED;
            }
        }
        LockClient client = connect();
        Runtime.getRuntime().addShutdownHook(new Thread(client::close, "dlock-leader-shutdown"));
        watch(client);
        return ExitCodes.OK; // not reached: the watch ends with the process
    }

    /**
     * Reads every {@link #interval} and prints a line when the leader or the epoch changed. Through the public API
     * only (the CLI does not reach dlock's internals): a pub/sub observer of elections is not API yet, so this polls.
     */
    private void watch(LockClient client) throws InterruptedException {
        PrintStream out = out();
        String last = null;
        long highestShown = Long.MIN_VALUE;
        while (true) {
            String now = LocalTime.now().format(CLOCK);
            try {
                LeaderView view = LeaderView.read(client, name);
                if (view.epoch() != null && view.epoch() < highestShown) {
                    log("epoch " + view.epoch() + " read below " + highestShown + " shown before: not shown");
                } else if (!view.signature().equals(last)) {
                    out.println(now + " " + view.line());
                    last = view.signature();
                    if (view.epoch() != null) {
                        highestShown = view.epoch();
                    }
                }
            } catch (RuntimeException e) {
                String signature = "error|" + e.getMessage();
                if (!signature.equals(last)) {
                    out.println(now + " " + name + ": error: " + Main.oneLine(e.getMessage()));
                    last = signature;
                }
            }
            out.flush();
            Thread.sleep(interval.toMillis());
        }
    }

    private void log(String message) {
        err().println("dlock: " + message);
    }
}
