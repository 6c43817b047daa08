package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/** The options every command takes ({@code --redis}, {@code --verbose}, {@code --help}) and shared helpers. */
abstract class BaseCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--redis", paramLabel = "URI", converter = Converters.RedisUriConverter.class,
            description = "Redis to use: redis://[user:password@]host[:port][/db] or rediss://... for TLS, "
                    + "redis-sentinel://host:port[,host:port...]/?sentinelMasterId=name for Sentinel, "
                    + "redis-cluster://host:port[,host:port...] for a Cluster "
                    + "(default: $DLOCK_REDIS, else " + RedisUris.DEFAULT + ").")
    String redis;

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

    /**
     * Connects to {@link #redisUri()}.
     *
     * @throws CliException exit 69 when Redis cannot be reached, 2 when the URI is rejected
     */
    LockClient connect(UnaryOperator<LockClientConfig.Builder> settings) {
        String uri = redisUri();
        LockClientConfig config;
        try {
            config = settings.apply(LockClientConfig.builder().redisUri(uri)).build();
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
        try {
            return LockClient.create(config);
        } catch (LockException e) {
            throw new CliException(ExitCodes.UNAVAILABLE, e.getMessage(), e);
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
