package io.dlock.cli;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * A semaphore across processes: worker threads in two child JVMs share the permits of one leased semaphore. Each
 * counts itself in and out of a Redis key while it holds a permit, so the key's highest value is the most holders
 * that were ever inside at once, whatever JVM they ran in: never more than the permits.
 */
final class SemaphoreScenario extends DemoScenario {
    private static final int JVMS = 2;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 15;
    private static final int PERMITS = 3;

    SemaphoreScenario() {
        super("Semaphore: " + JVMS + " JVMs x " + THREADS + " threads share " + PERMITS + " permits", "permits");
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws Exception {
        LockClient client = context.newClient(null);
        String inside = name + ":inside";
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        boolean created = semaphore.trySetPermits(PERMITS);
        context.say("leased semaphore '" + name + "' of " + PERMITS + " permits; each thread takes a permit "
                + ITERATIONS + " times");
        context.say("inside, it counts itself in and out of the key '" + inside + "' (INCR, a few ms, DECR)");
        context.check("created with " + PERMITS + " permits (available: " + semaphore.availablePermits() + ")",
                created && semaphore.availablePermits() == PERMITS);
        WorkerRace race = WorkerRace.run(context, JVMS, "permits", context.uri(), name, inside,
                Integer.toString(THREADS), Integer.toString(ITERATIONS));
        long entries = race.done().stream().mapToLong(WorkerRace.Done::first).sum();
        long mostInside = race.done().stream().mapToLong(WorkerRace.Done::second).max().orElse(0);
        context.say(race.summary("entries"));
        int expected = JVMS * THREADS * ITERATIONS;
        context.check("at most " + PERMITS + " inside at once (most seen: " + mostInside + ")",
                mostInside >= 1 && mostInside <= PERMITS);
        context.check("every acquisition got in (" + entries + " of " + expected + ")", entries == expected);
        int available = semaphore.availablePermits();
        context.check("all " + PERMITS + " permits back afterwards (available: " + available + ")",
                available == PERMITS);
        context.check("both worker JVMs finished cleanly", race.exitedCleanly());
        semaphore.delete();
        try (StatefulRedisConnection<String, String> connection = context.connect()) {
            connection.sync().del(inside);
        }
        return true;
    }
}
