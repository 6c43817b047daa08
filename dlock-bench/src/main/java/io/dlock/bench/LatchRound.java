package io.dlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One latch round, as S11 runs it ({@link FamilyScenarios}) and {@link LatchRoundPhases} takes it apart: the calling
 * thread sets the count to {@value FamilyScenarios#COUNT}, then {@code awaiters} awaits and
 * {@value FamilyScenarios#COUNT} count-downs run at once on {@code pool}, and the caller waits for all of them.
 *
 * <p>The safety check: a count-down notes itself before it calls {@code countDown()}, so an awaiter that returns must
 * see all {@value FamilyScenarios#COUNT} noted; one that sees fewer was let out early and is counted in {@code early}.
 */
final class LatchRound {
    /** The phases whose ends {@link #run} reports, in this order. */
    static final String[] PHASES = {"set", "joined", "counted", "first out", "last out", "round"};

    private LatchRound() {
    }

    /**
     * Runs one round; fails when a task fails or does not end within 30 s.
     *
     * @return the end of each of {@link #PHASES} in ns from the round's start (those of awaiters are 0 without any),
     *         or null when {@code trySetCount} was refused (the latch was not at 0) and nothing else ran
     */
    static long[] run(Family.Latch latch, ExecutorService pool, int awaiters, AtomicInteger early) throws Exception {
        long start = System.nanoTime();
        if (!latch.trySetCount(FamilyScenarios.COUNT)) {
            return null;
        }
        long set = System.nanoTime();
        AtomicInteger noted = new AtomicInteger();
        AtomicLong joined = new AtomicLong(start);
        AtomicLong counted = new AtomicLong(start);
        AtomicLong firstOut = new AtomicLong(awaiters == 0 ? start : Long.MAX_VALUE);
        AtomicLong lastOut = new AtomicLong(start);
        List<Future<?>> tasks = new ArrayList<>();
        for (int i = 0; i < awaiters; i++) {
            tasks.add(pool.submit(() -> {
                joined.accumulateAndGet(System.nanoTime(), Math::max);
                latch.await();
                long out = System.nanoTime();
                if (noted.get() < FamilyScenarios.COUNT) {
                    early.incrementAndGet();
                }
                firstOut.accumulateAndGet(out, Math::min);
                lastOut.accumulateAndGet(out, Math::max);
                return null;
            }));
        }
        for (int i = 0; i < FamilyScenarios.COUNT; i++) {
            tasks.add(pool.submit(() -> {
                noted.incrementAndGet();
                latch.countDown();
                counted.accumulateAndGet(System.nanoTime(), Math::max);
            }));
        }
        for (Future<?> task : tasks) {
            task.get(30, TimeUnit.SECONDS);
        }
        long end = System.nanoTime();
        return new long[] {set - start, joined.get() - start, counted.get() - start, firstOut.get() - start,
                lastOut.get() - start, end - start};
    }
}
