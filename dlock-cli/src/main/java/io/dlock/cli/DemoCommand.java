package io.dlock.cli;

import picocli.CommandLine.Command;

/**
 * {@code dlock demo}: a tour of the lock kinds, a semaphore, a count-down latch and a multi-lock, with checks;
 * {@link Demo} does the work.
 */
@Command(name = "demo",
        header = "Show the locks, semaphores and latches at work, in under a minute, with checks.",
        description = {
            "",
            "Without --redis, starts its own redis-server on a free loopback port (the one on PATH, $REDIS_SERVER, "
                    + "or the binary shipped in the embedded-redis jar) and stops it on exit; $DLOCK_REDIS is "
                    + "ignored here. With --redis it uses that Redis, under keys dlock-demo:<random>:*.",
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

    @Override
    public Integer call() throws Exception {
        if (connectionOptions().isAnySet()) {
            // its worker JVMs get the URI as an argument: a password or TLS setting would not reach them (or show)
            throw CliException.usage("dlock demo takes --redis only (a URI without a password; no "
                    + "--password-file, --probe-lock-name or --tls-* options)");
        }
        String redis = redisOption();
        return new Demo(redis, out()).run();
    }
}
