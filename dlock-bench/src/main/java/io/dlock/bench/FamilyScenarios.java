package io.dlock.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

/**
 * The scenarios of issue 22, the rest of the family against Redisson: S9 semaphore, S10 leased semaphore, S11 latch
 * round, S12 multi-lock. Each has a safety check that fails when the object lets too many in (or out).
 */
final class FamilyScenarios {
    static final int SEM_THREADS = 16;
    static final int SEM_PERMITS = 4;
    /** A latch round: {@value #COUNT} count-downs release {@value #AWAITERS} awaiters. */
    static final int COUNT = 4;
    static final int AWAITERS = 4;
    static final int MULTI_THREADS = 8;

    private FamilyScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                scenario("S9", "semaphore, 16 threads on 4 permits, acquire()+release() (at most 4 inside)",
                        FamilyScenarios::semaphore),
                scenario("S10", "leased semaphore, 16 threads on 4 permits, acquire()+release(permit) "
                        + "(at most 4 inside)", FamilyScenarios::leased),
                scenario("S11", "latch round: trySetCount(" + COUNT + "), " + AWAITERS + " threads await, " + COUNT
                        + " threads count down; ops = rounds", FamilyScenarios::latchRounds),
                scenario("S12", "multi-lock of 3 names, " + MULTI_THREADS + " threads, lock()+unlock() "
                        + "(exclusion, exact counter)", (library, duration, name) -> multiLock(library, duration,
                        name + ":a", name + ":b", name + ":c")),
                scenario("S12S", "multi-lock of 3 names on one slot ({tag}:a..c), " + MULTI_THREADS
                        + " threads, lock()+unlock() (exclusion, exact counter)", (library, duration, name) ->
                        multiLock(library, duration, "{" + name + "}:a", "{" + name + "}:b", "{" + name + "}:c")));
    }

    private interface Body {
        Scenario.Outcome run(Library library, Duration duration, String name) throws Exception;
    }

    private static Scenario scenario(String id, String title, Body body) {
        return Scenario.of(id, title, (library, context, duration) -> body.run(library, duration, id.toLowerCase()));
    }

    private static Scenario.Outcome semaphore(Library library, Duration duration, String name) throws Exception {
        Family.Permits semaphore = Family.semaphore(library, name);
        if (!semaphore.trySetPermits(SEM_PERMITS)) {
            return failed(null, "trySetPermits refused on a flushed server");
        }
        Occupancy occupancy = new Occupancy(SEM_PERMITS);
        Load.Result load = Load.run(SEM_THREADS, duration, t -> {
            semaphore.acquire();
            try {
                occupancy.pass();
            } finally {
                semaphore.release();
            }
            return true;
        });
        int left = semaphore.availablePermits();
        String check = occupancy.verdict();
        if (check.equals("ok") && left != SEM_PERMITS) {
            check = "PERMITS " + left + " != " + SEM_PERMITS + " after the run";
        }
        return failed(load, check);
    }

    private static Scenario.Outcome leased(Library library, Duration duration, String name) throws Exception {
        Family.LeasedPermits semaphore = Family.leasedSemaphore(library, name);
        if (!semaphore.trySetPermits(SEM_PERMITS)) {
            return failed(null, "trySetPermits refused on a flushed server");
        }
        Occupancy occupancy = new Occupancy(SEM_PERMITS);
        Load.Result load = Load.run(SEM_THREADS, duration, t -> {
            Object permit = semaphore.acquire();
            try {
                occupancy.pass();
            } finally {
                semaphore.release(permit);
            }
            return true;
        });
        return failed(load, occupancy.verdict());
    }

    /** One thread runs {@link LatchRound}s on a pool; an awaiter let out early fails the check. */
    private static Scenario.Outcome latchRounds(Library library, Duration duration, String name) throws Exception {
        Family.Latch latch = Family.latch(library, name);
        AtomicInteger early = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(COUNT + AWAITERS);
        Load.Result load;
        try {
            load = Load.run(1, duration, t -> {
                if (LatchRound.run(latch, pool, AWAITERS, early) == null) {
                    refused.incrementAndGet();
                }
                return true;
            });
        } finally {
            pool.shutdownNow();
        }
        String check = early.get() > 0 ? "AWAITER OUT EARLY x" + early.get()
                : refused.get() > 0 ? "trySetCount REFUSED x" + refused.get() + " (latch not at 0 after a round)"
                : "ok";
        return failed(load, check);
    }

    private static Scenario.Outcome multiLock(Library library, Duration duration, String... names) throws Exception {
        Lock multi = Family.multiLock(library, names);
        Exclusion exclusion = new Exclusion();
        Load.Result load = Load.run(MULTI_THREADS, duration, t -> {
            multi.lock();
            try {
                exclusion.exclusive();
            } finally {
                multi.unlock();
            }
            return true;
        });
        return failed(load, exclusion.verdict(load.ops()));
    }

    /** @return the outcome, the load's failure taking precedence over the check */
    private static Scenario.Outcome failed(Load.Result load, String check) {
        if (load == null) {
            return new Scenario.Outcome(new Load.Result(0, 0, Measurement.newHistogram(), null, null), check);
        }
        return new Scenario.Outcome(load, load.failure() != null ? load.failure().toString() : check);
    }
}
