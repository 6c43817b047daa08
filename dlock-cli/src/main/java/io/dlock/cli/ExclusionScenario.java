package io.dlock.cli;

import io.lettuce.core.api.StatefulRedisConnection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Mutual exclusion across processes: worker threads in two child JVMs increment a Redis counter by a GET then a SET
 * under one lock. The total is exact, and no worker ever finds another one inside.
 */
final class ExclusionScenario implements DemoScenario {
    private static final int JVMS = 2;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 50;

    @Override
    public String title() {
        return "Mutual exclusion: " + JVMS + " JVMs x " + THREADS + " threads, " + ITERATIONS
                + " increments each, one lock";
    }

    @Override
    public boolean run(ScenarioContext context) throws Exception {
        String lockName = context.key("counter-lock");
        String counter = context.key("counter");
        context.say("each increment is a GET then a SET of the key '" + counter + "' under lock '" + lockName + "':");
        context.say("without the lock, concurrent increments would overwrite each other");
        List<DemoChild> workers = new ArrayList<>();
        for (int i = 0; i < JVMS; i++) {
            workers.add(context.startChild("count", context.uri(), lockName, counter, Integer.toString(THREADS),
                    Integer.toString(ITERATIONS)));
        }
        for (DemoChild w : workers) {
            w.await("READY");
        }
        long go = System.nanoTime();
        for (DemoChild w : workers) {
            w.send("GO");
        }
        int total = 0;
        int overlaps = 0;
        StringBuilder perJvm = new StringBuilder();
        for (DemoChild w : workers) {
            String[] done = w.await("DONE ").split(" ");
            total += Integer.parseInt(done[1]);
            overlaps += Integer.parseInt(done[2]);
            perJvm.append(perJvm.length() == 0 ? "" : ", ").append("JVM ").append(w.process().pid()).append(": ")
                    .append(done[1]).append(" increments");
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - go);
        boolean exited = true;
        for (DemoChild w : workers) {
            exited &= w.process().waitFor(10, TimeUnit.SECONDS) && w.process().exitValue() == 0;
        }
        context.say(perJvm + ", in " + DurationText.formatMillis(tookMs));
        long expected = (long) JVMS * THREADS * ITERATIONS;
        String value;
        try (StatefulRedisConnection<String, String> connection = context.connect()) {
            value = connection.sync().get(counter);
            connection.sync().del(counter, counter + ":inside");
        }
        context.check("counter = " + value + " (expected " + expected + ")", String.valueOf(expected).equals(value)
                && total == expected);
        context.check("never two holders inside at once (" + overlaps + " overlaps seen)", overlaps == 0);
        context.check("both worker JVMs finished cleanly", exited);
        return true;
    }
}
