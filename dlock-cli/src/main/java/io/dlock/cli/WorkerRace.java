package io.dlock.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A race between child JVMs running a {@link DemoWorker} mode that answers {@code READY}, waits for {@code GO} and
 * ends with {@code DONE <a> <b>}: every child is ready before any is told to go, so they all start together.
 */
final class WorkerRace {
    /** One child's {@code DONE} line: its two numbers. */
    record Done(long pid, long first, long second) {
    }

    private final List<Done> done;
    private final long tookMs;
    private final boolean exitedCleanly;

    private WorkerRace(List<Done> done, long tookMs, boolean exitedCleanly) {
        this.done = done;
        this.tookMs = tookMs;
        this.exitedCleanly = exitedCleanly;
    }

    /**
     * Starts {@code jvms} children with {@code args}, lets them go at once, and waits for every {@code DONE} and exit.
     *
     * @throws IllegalStateException when a child does not say what it should in time
     */
    static WorkerRace run(ScenarioContext context, int jvms, String... args) throws Exception {
        List<DemoChild> workers = new ArrayList<>();
        for (int i = 0; i < jvms; i++) {
            workers.add(context.startChild(args));
        }
        for (DemoChild w : workers) {
            w.await("READY");
        }
        long go = System.nanoTime();
        for (DemoChild w : workers) {
            w.send("GO");
        }
        List<Done> done = new ArrayList<>();
        for (DemoChild w : workers) {
            String[] fields = w.await("DONE ").split(" ");
            done.add(new Done(w.process().pid(), Long.parseLong(fields[1]), Long.parseLong(fields[2])));
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - go);
        boolean exited = true;
        for (DemoChild w : workers) {
            exited &= w.process().waitFor(10, TimeUnit.SECONDS) && w.process().exitValue() == 0;
        }
        return new WorkerRace(List.copyOf(done), tookMs, exited);
    }

    /** The {@code DONE} lines, in the order the children were started. */
    List<Done> done() {
        return done;
    }

    /** {@code JVM <pid>: <first> <unit>, …, in <time>}: what each child did, and how long the race took. */
    String summary(String unit) {
        StringBuilder perJvm = new StringBuilder();
        for (Done d : done) {
            perJvm.append(perJvm.length() == 0 ? "" : ", ").append("JVM ").append(d.pid()).append(": ")
                    .append(d.first()).append(' ').append(unit);
        }
        return perJvm + ", in " + DurationText.formatMillis(tookMs);
    }

    /** Whether every child exited with 0 within 10 s of its {@code DONE}. */
    boolean exitedCleanly() {
        return exitedCleanly;
    }
}
