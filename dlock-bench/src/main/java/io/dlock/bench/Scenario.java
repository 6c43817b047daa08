package io.dlock.bench;

import java.time.Duration;

/** One benchmark scenario, run for one library at a time on a shared server. */
interface Scenario {

    /** Short id (S1…S8, W1, W1000). */
    String id();

    /** What it measures, for the report. */
    String title();

    /**
     * @return why this scenario cannot run on this JVM (Bench then skips it with one line), or null when it can
     */
    default String unavailable() {
        return null;
    }

    /** Runs the scenario for {@code duration}; the caller snapshots Redis stats and CPU around it. */
    Outcome run(Library library, Bench.Context context, Duration duration) throws Exception;

    /** A scenario given by its id, title and {@link Body}. */
    static Scenario of(String id, String title, Body body) {
        return new OfBody(id, title, body);
    }

    /** What {@link #run} does, for a scenario made with {@link #of}. */
    @FunctionalInterface
    interface Body {
        Outcome run(Library library, Bench.Context context, Duration duration) throws Exception;
    }

    /** @see #of */
    record OfBody(String id, String title, Body body) implements Scenario {
        @Override
        public Outcome run(Library library, Bench.Context context, Duration duration) throws Exception {
            return body.run(library, context, duration);
        }
    }

    /** What a run produced before stats and CPU are added. */
    record Outcome(Load.Result load, String check) {
    }
}
