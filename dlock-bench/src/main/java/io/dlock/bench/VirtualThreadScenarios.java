package io.dlock.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Issue 29: {@value #THREADS} virtual threads on the synchronous {@code lock()}/{@code unlock()} of each library
 * (what users on virtual threads write). VT: each thread its own lock name; VTS: all of them on one name. Both need
 * a JVM with virtual threads ({@link VirtualThreads}); on an older one Bench skips them with one line.
 *
 * <p>Checks: VTS runs {@link Exclusion} inside the hold (an "inside" count that flags a second holder, and a plain
 * counter that must equal the completed acquisitions). VT runs the same check per name: each name's own
 * {@link Exclusion} against the acquisitions of that name. After a run, every name must be free in Redis (one
 * {@code EXISTS} over all of them: an unlock that returned without releasing fails it). Each run also reports how
 * often a virtual thread blocked while pinned to its carrier ({@link Pinning}), on the console.
 */
final class VirtualThreadScenarios {
    static final int THREADS = 10_000;
    /** How long a run waits, after its end, for the threads still in an operation (VTS: the queue of one name). */
    static final Duration DRAIN = Duration.ofSeconds(60);

    private VirtualThreadScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                new OnVirtualThreads("VT", String.format("%,d virtual threads, each its own lock name, lock()+unlock() "
                        + "(exclusion per name)", THREADS), VirtualThreadScenarios::ownNames),
                new OnVirtualThreads("VTS", String.format("%,d virtual threads on one lock name, lock()+unlock() "
                        + "(exclusion, exact counter)", THREADS), VirtualThreadScenarios::sharedName));
    }

    /** One scenario whose body runs on virtual threads: unavailable where the JVM has none. */
    record OnVirtualThreads(String id, String title, Scenario.Body body) implements Scenario {
        @Override
        public String unavailable() {
            return VirtualThreads.unavailable();
        }

        @Override
        public Outcome run(Library library, Bench.Context context, Duration duration) throws Exception {
            String reason = unavailable();
            if (reason != null) {
                throw new UnsupportedOperationException(reason);
            }
            try (Pinning pinning = Pinning.start()) {
                Outcome outcome = body.run(library, context, duration);
                System.out.printf("      %-5s %-13s %s%n", id, library.name(), pinning.stop());
                return outcome;
            }
        }
    }

    /** VT: thread {@code t} locks the name {@code vt:t}; each name checked on its own. */
    static Scenario.Outcome ownNames(Library library, Bench.Context context, Duration duration) throws Exception {
        String[] names = new String[THREADS];
        Lock[] locks = new Lock[THREADS];
        Exclusion[] exclusions = new Exclusion[THREADS];
        long[] acquisitions = new long[THREADS]; // each slot written by its own thread only, read after the run
        for (int t = 0; t < THREADS; t++) {
            names[t] = "vt:" + t;
            locks[t] = library.lock(names[t]);
            exclusions[t] = new Exclusion();
        }
        Load.Result load = VirtualLoad.run(THREADS, duration, DRAIN, t -> {
            locks[t].lock();
            try {
                exclusions[t].exclusive();
            } finally {
                locks[t].unlock();
            }
            acquisitions[t]++;
            return true;
        });
        if (load.failure() != null) {
            return new Scenario.Outcome(load, load.failure().toString());
        }
        int failed = 0;
        String first = null;
        for (int t = 0; t < THREADS; t++) {
            String verdict = exclusions[t].verdict(acquisitions[t]);
            if (!verdict.equals("ok")) {
                failed++;
                first = first != null ? first : names[t] + " " + verdict;
            }
        }
        return new Scenario.Outcome(load, failed > 0 ? failed + " NAME(S) FAILED, first " + first
                : released(context, names));
    }

    /** VTS: every thread on the name {@code vts}. */
    static Scenario.Outcome sharedName(Library library, Bench.Context context, Duration duration) throws Exception {
        String name = "vts";
        Lock lock = library.lock(name);
        Exclusion exclusion = new Exclusion();
        Load.Result load = VirtualLoad.run(THREADS, duration, DRAIN, t -> {
            lock.lock();
            try {
                exclusion.exclusive();
            } finally {
                lock.unlock();
            }
            return true;
        });
        if (load.failure() != null) {
            return new Scenario.Outcome(load, load.failure().toString());
        }
        String verdict = exclusion.verdict(load.ops());
        return new Scenario.Outcome(load, !verdict.equals("ok") ? verdict : released(context, name));
    }

    /**
     * @param context the bench's, or null where no Redis is behind the library (tests): then nothing is asked
     * @return "ok" when none of {@code names} is held in Redis (each library keeps a lock under its name), else how
     *         many are
     */
    private static String released(Bench.Context context, String... names) {
        long held = context == null ? 0 : context.stats().exists(names);
        return held == 0 ? "ok" : held + " NAME(S) STILL HELD after the run";
    }
}
