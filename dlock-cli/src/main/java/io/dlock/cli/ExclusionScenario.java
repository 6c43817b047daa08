package io.dlock.cli;

import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Mutual exclusion across processes: worker threads in two child JVMs increment a Redis counter by a GET then a SET
 * under one lock. The total is exact, and no worker ever finds another one inside.
 */
final class ExclusionScenario extends DemoScenario {
    private static final int JVMS = 2;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 50;

    ExclusionScenario() {
        super("Mutual exclusion: " + JVMS + " JVMs x " + THREADS + " threads, " + ITERATIONS
                + " increments each, one lock", "counter");
    }

    @Override
    boolean tell(ScenarioContext context, String counter) throws Exception {
        String lockName = counter + "-lock";
        context.say("each increment is a GET then a SET of the key '" + counter + "' under lock '" + lockName + "':");
        context.say("without the lock, concurrent increments would overwrite each other");
        WorkerRace race = WorkerRace.run(context, JVMS, "count", context.uri(), lockName, counter,
                Integer.toString(THREADS), Integer.toString(ITERATIONS));
        long total = race.done().stream().mapToLong(WorkerRace.Done::first).sum();
        long overlaps = race.done().stream().mapToLong(WorkerRace.Done::second).sum();
        context.say(race.summary("increments"));
        long expected = (long) JVMS * THREADS * ITERATIONS;
        String value;
        try (StatefulRedisConnection<String, String> connection = context.connect()) {
            value = connection.sync().get(counter);
            connection.sync().del(counter, counter + ":inside");
        }
        context.check("counter = " + value + " (expected " + expected + ")", String.valueOf(expected).equals(value)
                && total == expected);
        context.check("never two holders inside at once (" + overlaps + " overlaps seen)", overlaps == 0);
        context.check("both worker JVMs finished cleanly", race.exitedCleanly());
        return true;
    }
}
