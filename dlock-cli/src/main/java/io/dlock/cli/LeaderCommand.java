package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.NotALockException;
import io.dlock.internal.LockNames;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.internal.wakeup.WakeupHub;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
                    + "it subscribes to the lock's channel and re-reads after every message (a release: then every "
                    + "50ms for 2s, until the next leader shows) and every resubscription, and at least every "
                    + "--interval. Epochs shown never go down: a read with an epoch below one shown before (a stale "
                    + "replica after a failover) is not printed.",
        },
        parameterListHeading = "%nParameters:%n",
        optionListHeading = "%nOptions:%n")
final class LeaderCommand extends BaseCommand {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT);
    /** After a message (a release), how often and how long to re-read until the next leader shows. */
    private static final long FOLLOW_UP_MS = 50;
    private static final long FOLLOW_UP_FOR_MS = 2_000;

    @Option(names = "--watch", description = "Print every change of leader until Ctrl-C.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            description = "--watch: re-read at least this often, messages or not (default: ${DEFAULT-VALUE}).")
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
        watch(client, ((RedisLockClient) client).wakeups());
        return ExitCodes.OK; // not reached: the watch ends with the process
    }

    /**
     * Joins the lock's channel, reads once it is confirmed (so a leader elected before is shown), then re-reads after
     * every wake-up (a message, or a resubscription: the client wakes every waiter then) and every {@link #interval}.
     * {@link WakeupHub.Subscription#attempting()} before each read: a message that comes during a read ends the next
     * sleep, so none is missed.
     */
    private void watch(LockClient client, WakeupHub hub) throws InterruptedException {
        PrintStream out = out();
        String last = null;
        long highestShown = Long.MIN_VALUE;
        long followUpUntil = 0;
        try (WakeupHub.Subscription channel = hub.join(LockNames.lockChannel(name), true)) {
            try {
                channel.ready().get(client.config().commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                err().println("dlock: warning: could not subscribe to the lock's channel (" + Main.oneLine(
                        String.valueOf(e.getMessage())) + "); reading every " + DurationText.format(interval));
            }
            while (true) {
                String now = LocalTime.now().format(CLOCK);
                channel.attempting();
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
                    if (view.hasLeader()) {
                        followUpUntil = 0;
                    }
                } catch (RuntimeException e) {
                    String signature = "error|" + e.getMessage();
                    if (!signature.equals(last)) {
                        out.println(now + " " + name + ": error: " + Main.oneLine(e.getMessage()));
                        last = signature;
                    }
                }
                out.flush();
                long nowMs = System.nanoTime() / 1_000_000;
                long sleep = nowMs < followUpUntil ? FOLLOW_UP_MS : interval.toMillis();
                boolean woken;
                try {
                    woken = channel.sleep(sleep).get();
                } catch (ExecutionException e) {
                    woken = false;
                }
                if (woken) {
                    followUpUntil = System.nanoTime() / 1_000_000 + FOLLOW_UP_FOR_MS;
                }
            }
        }
    }

    private void log(String message) {
        err().println("dlock: " + message);
    }
}
