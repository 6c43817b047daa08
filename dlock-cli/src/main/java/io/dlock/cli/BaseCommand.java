package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/**
 * The options every command takes ({@code --redis} and the {@link ConnectionOptions}, {@code --verbose},
 * {@code --help}) and shared helpers.
 */
abstract class BaseCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--redis", paramLabel = "URI", converter = Converters.RedisUriConverter.class,
            description = "Redis to use: redis://[user:password@]host[:port][/db] or rediss://... for TLS, "
                    + "redis-sentinel://host:port[,host:port...]/?sentinelMasterId=name for Sentinel, "
                    + "redis-cluster://host:port[,host:port...] for a Cluster "
                    + "(default: $DLOCK_REDIS, else " + RedisUris.DEFAULT + ").")
    String redis;

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Option(names = {"-v", "--verbose"}, description = "Log more (INFO, DEBUG for dlock) and show stack traces.")
    void setVerbose(boolean verbose) {
        if (verbose) {
            Logging.verbose();
        }
    }

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    /** The {@code --redis} given on this command or, failing that, on a parent command; null when none was. */
    String redisOption() {
        for (CommandSpec s = spec; s != null; s = s.parent()) {
            if (s.userObject() instanceof BaseCommand base && base.redis != null) {
                return base.redis;
            }
        }
        return null;
    }

    /** @return the URI to use: {@code --redis}, {@code $DLOCK_REDIS} or the default */
    String redisUri() {
        return RedisUris.resolve(redisOption());
    }

    LockClient connect() {
        return connect(UnaryOperator.identity());
    }

    /** The connection options given on this command or, failing that, on a parent command. */
    ConnectionOptions connectionOptions() {
        List<ConnectionOptions> chain = new ArrayList<>();
        for (CommandSpec s = spec; s != null; s = s.parent()) {
            if (s.userObject() instanceof BaseCommand base) {
                chain.add(base.connection);
            }
        }
        return ConnectionOptions.merged(chain);
    }

    /**
     * Connects to {@link #redisUri()} with the {@link ConnectionOptions}. Warns on stderr when {@code --redis}
     * carries a password, which every local user can read in the process list.
     *
     * @throws CliException 69 when Redis cannot be reached, 77 when it refuses the password or an ACL permission is
     *                      missing, 78 when the TLS settings do not fit the server or it is too old
     *                      ({@link ExitCodes#of}), 2 when the URI or an option is rejected
     */
    LockClient connect(UnaryOperator<LockClientConfig.Builder> settings) {
        String option = redisOption();
        ConnectionOptions options = connectionOptions();
        if (option != null && RedisUris.hasPassword(option, options.givesPassword(System.getenv()))) {
            err().println("dlock: warning: the password in --redis can be read by every user of this host (ps, "
                    + "/proc/PID/cmdline); give it with --password-file FILE or $" + ConnectionOptions.PASSWORD_ENV
                    + " (or the whole URI in $" + RedisUris.ENV + ")");
        }
        String uri = options.uriWithPassword(redisUri(), System.getenv());
        LockClientConfig config;
        try {
            // the application its holds show under in status and inspect (docs/protocol.md §6.1)
            config = settings.apply(options.apply(LockClientConfig.builder().redisUri(uri).applicationName("dlock"),
                    System::getenv)).build();
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
        try {
            return LockClient.create(config);
        } catch (LockException e) {
            throw new CliException(ExitCodes.of(e), e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, "--redis: " + e.getMessage(), e);
        }
    }

    static Duration atLeast(Duration value, Duration min, String option) {
        if (value.compareTo(min) < 0) {
            throw CliException.usage(option + " must be at least " + DurationText.format(min) + ": "
                    + DurationText.format(value));
        }
        return value;
    }

    PrintStream out() {
        return System.out;
    }

    PrintStream err() {
        return System.err;
    }
}
