package io.dlock.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code dlock demo}: a tour of the lock kinds, a semaphore, a count-down latch and a multi-lock, with checks;
 * {@link Demo} does the work.
 */
@Command(name = "demo",
        header = "Show the locks, semaphores and latches at work, in under a minute, with checks.",
        description = {
            "",
            "Without --redis, starts its own redis-server on a free loopback port (the one --server names, else "
                    + "$REDIS_SERVER, the one on PATH, or the binary shipped in the embedded-redis jar) and stops it "
                    + "on exit; $DLOCK_REDIS is ignored here. With --redis it uses that Redis, under keys "
                    + "dlock-demo:<random>:*. Any server line dlock is tested on runs the demo: Redis 6.2, 7.x and "
                    + "8.0, and Valkey 8.1 (.ci/server-lines fetches the last two).",
            "",
            "Scenarios: workers in two JVMs contending on one lock (exact counter total); reentrancy; the watchdog "
                    + "keeping a long hold alive; a holder process killed with SIGKILL and its lock recovered after "
                    + "its lease; fair-lock FIFO order; readers sharing while a writer waits; a semaphore's permits "
                    + "shared by two JVMs (never more inside than permits); a count-down latch (no awaiter passes "
                    + "before the last count-down); two multi-locks sharing a member (never inside together; all or "
                    + "nothing). Exits 0 when every check passed, 1 otherwise.",
        },
        optionListHeading = "%nOptions:%n")
final class DemoCommand extends BaseCommand {

    @Option(names = "--server", paramLabel = "PATH",
            description = "The redis-server (or valkey-server, or a launcher of either) to start for the demo, "
                    + "instead of $REDIS_SERVER or the one on PATH. Not with --redis.")
    private Path server;

    @Override
    public Integer call() throws Exception {
        if (connectionOptions().isAnySet()) {
            // its worker JVMs get the URI as an argument: a password or TLS setting would not reach them (or show)
            throw CliException.usage("dlock demo takes --redis only (a URI without a password; no "
                    + "--password-file, --probe-lock-name or --tls-* options)");
        }
        String redis = redisOption();
        if (server != null) {
            if (redis != null) {
                throw CliException.usage("dlock demo takes --server or --redis, not both (--server starts a server, "
                        + "--redis uses a running one)");
            }
            if (!Files.isRegularFile(server) || !Files.isExecutable(server)) {
                throw CliException.usage("--server " + server + " is not an executable file");
            }
        }
        return new Demo(redis, server, out()).run();
    }
}
