package io.dlock.testkit;

import org.junit.jupiter.api.Assumptions;

/**
 * The one rule for a server that crashes while a test brings it back (a node restarted after a SIGKILL): a bug of the
 * server, not of dlock or of the kit, so the test is skipped, saying so, instead of failing. Seen with Valkey 8.1.1,
 * whose restarted cluster nodes may crash in {@code genClusterInfoString} (valkey-io/valkey#3170, fixed by #3173 after
 * 8.1.1). Recognised by the server's own crash report in the log tail that the failed start carries; any other failure
 * to start still fails the test.
 */
public final class ServerCrashes {
    private ServerCrashes() {
    }

    /**
     * Runs {@code recover}; skips the calling test when a server crashed starting again.
     *
     * @throws org.opentest4j.TestAbortedException when the server crashed (JUnit reports the test as skipped)
     */
    public static void recoverOrSkip(Runnable recover) {
        try {
            recover.run();
        } catch (IllegalStateException e) {
            String message = String.valueOf(e.getMessage());
            Assumptions.assumeFalse(message.contains("failed to start") && crashReport(message),
                    () -> "skipped: the server itself crashed restarting a node (" + message.lines().findFirst()
                            .orElse("") + "; valkey-io/valkey#3170 for Valkey 8.1.1)");
            throw e;
        }
    }

    /**
     * @return whether {@code log} (the tail of the server's log) holds the server's own crash report: its head, or
     *         (when the tail shows only the report's end) the sections that only a crash report prints
     */
    static boolean crashReport(String log) {
        return log.contains("BUG REPORT") || log.contains("crashed by signal") || log.contains("genClusterInfoString")
                || log.contains("------ CLUSTER NODES OUTPUT ------") || log.contains("------ INFO OUTPUT ------");
    }
}
