package io.dlock.cli;

import io.dlock.LockClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** {@code dlock watch}: a live view of one lock, semaphore or latch. */
@Command(name = "watch",
        header = "Watch a lock live (holders, mode, queue and TTL), or a semaphore's permits or a latch's count, "
                + "until Ctrl-C.",
        description = {
            "",
            "Reads NAME every --interval, as `dlock status` does (--semaphore, --latch, or the kind its keys show). "
                    + "On a terminal the view is redrawn in place; otherwise (a pipe, a file) a time-stamped line is "
                    + "printed at the start and whenever what it shows changes: holders, mode or queue of a lock, "
                    + "available and leased permits of a semaphore, the count of a latch (not TTLs alone).",
        },
        parameterListHeading = "%nParameters:%n",
        optionListHeading = "%nOptions:%n")
final class WatchCommand extends BaseCommand {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "250ms",
            converter = Converters.DurationConverter.class,
            description = "How often to read the lock (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--semaphore", description = "Read NAME as a semaphore (plain or leased).")
    boolean semaphore;

    @Option(names = "--latch", description = "Read NAME as a count-down latch.")
    boolean latch;

    @Parameters(index = "0", paramLabel = "NAME", description = "The name of the lock, semaphore or latch.")
    String name;

    @Override
    public Integer call() throws InterruptedException {
        ObjectView.Kind kind = StatusCommand.kind(semaphore, latch);
        if (name.isBlank()) {
            throw CliException.usage("the name is blank");
        }
        atLeast(interval, Duration.ofMillis(10), "--interval");
        boolean terminal = System.console() != null;
        PrintStream out = out();
        LockClient client = connect();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (terminal) {
                out.print("\u001b[?25h\n"); // show the cursor again
                out.flush();
            }
            client.close();
        }, "dlock-watch-shutdown"));
        if (terminal) {
            out.print("\u001b[?25l\u001b[2J"); // hide the cursor, clear the screen
        }
        String redis = RedisUris.redact(redisUri());
        String last = null;
        while (true) {
            String now = LocalTime.now().format(CLOCK);
            String view;
            String signature;
            try {
                ObjectView object = ObjectView.read(client, name, kind);
                view = object.text();
                signature = object.signature();
                if (!terminal && !signature.equals(last)) {
                    out.println(now + " " + object.summary());
                }
            } catch (RuntimeException e) {
                view = name + "\n  error    " + Main.oneLine(e.getMessage()) + "\n";
                signature = "error|" + e.getMessage();
                if (!terminal && !signature.equals(last)) {
                    out.println(now + " " + name + ": error: " + Main.oneLine(e.getMessage()));
                }
            }
            if (terminal) {
                String screen = "dlock watch " + name + "   " + redis + "   " + now + "   (Ctrl-C to quit)\n\n" + view;
                out.print("\u001b[H" + screen.replace("\n", "\u001b[K\n") + "\u001b[J");
            }
            out.flush();
            last = signature;
            Thread.sleep(interval.toMillis());
        }
    }
}
