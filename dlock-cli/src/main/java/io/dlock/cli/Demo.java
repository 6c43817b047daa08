package io.dlock.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code dlock demo}: nine short {@link DemoScenario}s, each with explicit checks, against the {@link DemoRedis}
 * (embedded or given), told by the {@link DemoReport}. The child JVMs ({@link DemoChild}), the lock clients and the
 * embedded Redis are cleaned up on every exit; a shutdown hook covers Ctrl-C.
 */
final class Demo {
    private static final List<DemoScenario> SCENARIOS = List.of(new ExclusionScenario(), new ReentrancyScenario(),
            new WatchdogScenario(), new CrashScenario(), new FairLockScenario(), new ReadWriteScenario(),
            new SemaphoreScenario(), new LatchScenario(), new MultiLockScenario(), new ElectionScenario());

    private final String externalUri;
    private final Path serverBinary;
    private final DemoReport report;
    private final DemoRedis redis = new DemoRedis();
    private final ScenarioContext context;

    /**
     * @param externalUri  the {@code --redis} to use, or null to start a Redis
     * @param serverBinary the {@code --server} to start, or null for the test kit's choice ({@code $REDIS_SERVER},
     *                     {@code PATH}, the embedded binary); used only without {@code externalUri}
     */
    Demo(String externalUri, Path serverBinary, PrintStream out) {
        this.externalUri = externalUri;
        this.serverBinary = serverBinary;
        this.report = new DemoReport(out);
        this.context = new ScenarioContext(redis, report);
    }

    int run() {
        long start = System.nanoTime();
        Thread hook = new Thread(this::cleanUp, "dlock-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            report.line(redis.start(externalUri, serverBinary));
            report.line("Holders are shown as <client id>:<owner id>, client ids cut to 8 characters.");
            for (int i = 0; i < SCENARIOS.size(); i++) {
                run(i + 1, SCENARIOS.get(i));
            }
            report.summary(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            return report.exitCode();
        } finally {
            cleanUp();
            report.flush();
        }
    }

    private void run(int number, DemoScenario scenario) {
        report.beginScenario(number + ". " + scenario.title());
        long start = System.nanoTime();
        boolean completed;
        try {
            completed = scenario.run(context);
        } catch (Exception e) {
            report.error(e);
            completed = false;
        } finally {
            context.closeClients();
            context.stopChildren();
        }
        report.endScenario(completed, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Idempotent; also the shutdown hook (Ctrl-C): child JVMs, clients, the embedded Redis. */
    private synchronized void cleanUp() {
        context.stopChildren();
        context.closeClients();
        redis.close();
    }
}
