package io.dlock.bench;

import io.dlock.reactor.ReactiveHold;
import io.dlock.reactor.ReactiveLock;
import io.dlock.reactor.ReactiveLockClient;
import org.HdrHistogram.AtomicHistogram;
import org.HdrHistogram.Histogram;
import org.redisson.api.RLockReactive;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * Issue 30: the Reactor API against Redisson's reactive lock, measured as S1 and S3 are. dlock runs
 * {@link ReactiveLockClient#of} over the bench's client, Redisson {@code redisson.reactive().getLock(name)}; Redisson's
 * reactive lock is held by a thread id given to each call, so every chain passes its own distinct id.
 *
 * <ul>
 *   <li>R1: one chain, {@code lock()} then {@code unlock()} of the hold on one name, in a loop
 *       (dlock {@code lock().flatMap(ReactiveHold::unlock)}, Redisson {@code lock(id).then(unlock(id))}).</li>
 *   <li>R3: {@value #CHAINS} chains contending on one name, the critical section written as a user writes it: dlock
 *       {@code withLock(hold -> work)}, Redisson {@code Mono.usingWhen(lock(id), work, unlock(id))}; both release on
 *       completion, error and cancel. Check: {@link Exclusion} inside the hold (an "inside" count that flags a second
 *       holder, and a plain counter that must equal the completed cycles).</li>
 * </ul>
 *
 * <p>Each chain is sequential, as a thread of S1/S3 is: the next cycle is subscribed when the previous one's unlock
 * completed ({@code Mono.defer(cycle).repeat(until the end)}); nothing on a chain blocks. The run's wall time ends
 * when every chain finished the cycle it was in at the end (those cycles count); a chain not done {@link #DRAIN} after
 * the end fails the run. Latency: one cycle, acquire to release completed.
 */
final class ReactiveScenarios {
    static final int CHAINS = 8;
    static final Duration DRAIN = Duration.ofSeconds(60);
    /** Redisson thread ids of the chains: this plus the chain's index, far from the JVM's own thread ids. */
    static final long REDISSON_CHAIN_ID_BASE = 1L << 40;

    private ReactiveScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                Scenario.of("R1", "1 reactive chain, lock()+unlock() on one name (Redisson: reactive lock, "
                        + "own thread id)", (library, context, duration) -> single(library, duration)),
                Scenario.of("R3", CHAINS + " reactive chains on one lock, withLock / usingWhen (exclusion, exact "
                        + "counter)", (library, context, duration) -> contended(library, duration)));
    }

    /** R1: one chain, lock then unlock of the hold, no critical section (as S1). */
    private static Scenario.Outcome single(Library library, Duration duration) throws Exception {
        String name = "r1";
        IntFunction<Mono<Void>> cycle;
        if (library instanceof Library.Dlock dlock) {
            ReactiveLock lock = ReactiveLockClient.of(dlock.client()).getLock(name);
            cycle = chain -> lock.lock().flatMap(ReactiveHold::unlock);
        } else if (library instanceof Library.RedissonLibrary redisson) {
            RLockReactive lock = redisson.client().reactive().getLock(name);
            cycle = chain -> {
                long id = REDISSON_CHAIN_ID_BASE + chain;
                return lock.lock(id).then(Mono.defer(() -> lock.unlock(id)));
            };
        } else {
            throw new UnsupportedOperationException("no reactive lock for " + library.name());
        }
        Load.Result load = run(1, duration, cycle);
        return new Scenario.Outcome(load, load.failure() == null ? "ok" : load.failure().toString());
    }

    /** R3: {@value #CHAINS} chains on one name, the exclusion check inside the hold (as S3). */
    private static Scenario.Outcome contended(Library library, Duration duration) throws Exception {
        String name = "r3";
        Exclusion exclusion = new Exclusion();
        IntFunction<Mono<Void>> cycle;
        if (library instanceof Library.Dlock dlock) {
            ReactiveLock lock = ReactiveLockClient.of(dlock.client()).getLock(name);
            cycle = chain -> lock.withLock(hold -> Mono.<Void>fromRunnable(exclusion::exclusive)).then();
        } else if (library instanceof Library.RedissonLibrary redisson) {
            RLockReactive lock = redisson.client().reactive().getLock(name);
            cycle = chain -> {
                long id = REDISSON_CHAIN_ID_BASE + chain;
                return Mono.usingWhen(lock.lock(id).thenReturn(id),
                        held -> Mono.<Void>fromRunnable(exclusion::exclusive),
                        held -> lock.unlock(id));
            };
        } else {
            throw new UnsupportedOperationException("no reactive lock for " + library.name());
        }
        Load.Result load = run(CHAINS, duration, cycle);
        return new Scenario.Outcome(load, load.failure() != null ? load.failure().toString()
                : exclusion.verdict(load.ops()));
    }

    /**
     * Runs {@code chains} sequential chains of {@code cycle} until {@code duration} has passed, then waits (blocking
     * the calling thread only) for every chain to finish the cycle it is in.
     *
     * @param cycle makes chain {@code i}'s next cycle (called once per cycle, so each is a fresh Mono)
     */
    static Load.Result run(int chains, Duration duration, IntFunction<Mono<Void>> cycle) throws InterruptedException {
        AtomicHistogram latency = new AtomicHistogram(Measurement.newHistogram().getHighestTrackableValue(), 3);
        LongAdder ops = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        List<Mono<Void>> all = new ArrayList<>(chains);
        for (int c = 0; c < chains; c++) {
            int chain = c;
            all.add(Mono.defer(() -> {
                        long begin = System.nanoTime();
                        return cycle.apply(chain).doOnSuccess(done -> {
                            long micros = (System.nanoTime() - begin) / 1000;
                            latency.recordValue(Math.min(micros, latency.getHighestTrackableValue()));
                            ops.increment();
                        });
                    })
                    .repeat(() -> failure.get() == null && System.nanoTime() - end < 0)
                    .then()
                    .onErrorResume(e -> {
                        failure.compareAndSet(null, e);
                        return Mono.empty();
                    }));
        }
        CompletableFuture<Void> done = Mono.when(all).toFuture();
        try {
            done.get(duration.toNanos() + DRAIN.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            failure.compareAndSet(null, new IllegalStateException("HUNG: reactive chains still in a cycle "
                    + DRAIN.toSeconds() + " s after the end"));
            done.cancel(true);
        } catch (java.util.concurrent.ExecutionException e) {
            failure.compareAndSet(null, e.getCause());
        }
        long stop = System.nanoTime();
        Histogram main = Measurement.newHistogram();
        main.add(latency);
        return new Load.Result(ops.sum(), (stop - start) / 1e9, main, null, failure.get());
    }
}
