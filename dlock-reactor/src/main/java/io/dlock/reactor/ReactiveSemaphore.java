package io.dlock.reactor;

import io.dlock.DistributedSemaphore;
import io.dlock.LockClient;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A counting semaphore for Reactor pipelines, over {@link DistributedSemaphore} (Redisson's {@code RSemaphore}
 * wire): permits are a count in Redis with no owner, so a permit taken by one subscription may be released by
 * anyone. {@link #withPermits(int, Supplier)} takes and gives back permits around a publisher.
 *
 * <p>Same contract as {@link ReactiveLock}: lazy (each subscription acquires anew), cancellation leaves nothing
 * taken (a grant that races the cancel goes back), nothing blocks, signals on the client's executor, bad arguments
 * thrown when the Mono is made (naming the semaphore), Redis failures as error signals ({@link io.dlock.LockException}).
 * A wait of zero is one attempt; one longer than {@link io.dlock.DistributedLock#MAX_LEASE} is no limit. Thread-safe.
 */
public final class ReactiveSemaphore extends ReactivePermitCounter {
    private static final String KIND = "semaphore";

    private final DistributedSemaphore semaphore;

    ReactiveSemaphore(LockClient client, DistributedSemaphore semaphore) {
        super(client, semaphore, KIND, Integer.MIN_VALUE);
        this.semaphore = semaphore;
    }

    /**
     * Takes one permit, waiting as long as it takes ({@link DistributedSemaphore#acquireAsync()}).
     *
     * @return completes empty once taken
     */
    public Mono<Void> acquire() {
        return acquire(1);
    }

    /**
     * Takes {@code permits} permits at once, waiting as long as it takes.
     *
     * @return completes empty once taken
     * @throws IllegalArgumentException when {@code permits} is below 1
     */
    public Mono<Void> acquire(int permits) {
        return taken(permits, null).flatMap(granted -> Mono.empty());
    }

    /** @return emits whether one permit was taken, in one attempt */
    public Mono<Boolean> tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * One attempt to take {@code permits} permits.
     *
     * @return emits whether they were taken
     * @throws IllegalArgumentException when {@code permits} is below 1
     */
    public Mono<Boolean> tryAcquire(int permits) {
        return tryAcquire(permits, Duration.ZERO);
    }

    /**
     * Takes {@code permits} permits, waiting at most {@code wait}.
     *
     * @return emits whether they were taken (false when the wait ran out, also with Redis's answer still on its way
     *         while Redis is healthy: none is then taken, a late grant is given back); fails with
     *         {@link io.dlock.LockException} when Redis fails or is unavailable (connection down, or no answer for a
     *         command timeout), the rule of {@link io.dlock.DistributedSemaphore#tryAcquire(int, Duration)}
     * @throws NullPointerException     when {@code wait} is null
     * @throws IllegalArgumentException when {@code permits} is below 1 or {@code wait} negative
     */
    public Mono<Boolean> tryAcquire(int permits, Duration wait) {
        Checks.waitTime(KIND, getName(), "waitTime", wait);
        return taken(permits, wait).map(granted -> true).defaultIfEmpty(false);
    }

    /**
     * Gives back {@code permits} permits ({@link DistributedSemaphore#release(int)}): adds them to the count, whoever
     * took them.
     *
     * @throws IllegalArgumentException when {@code permits} is below 1
     */
    public Mono<Void> release(int permits) {
        Checks.permits(KIND, getName(), permits);
        return Grants.call(() -> semaphore.releaseAsync(permits));
    }

    /**
     * Holds {@code permits} permits exactly while the publisher from {@code work} runs: takes them when subscribed
     * (waiting as long as it takes), subscribes to the work, and gives them back when it completes, fails or is
     * cancelled. A cancel while waiting for the permits leaves none taken and never calls {@code work}; a cancel
     * while it runs goes through the work before the permits are given back (the rule of
     * {@link ReactiveLock#withLock(Function)}). Counted permits have no lease, so none is ever lost.
     *
     * @throws NullPointerException     when {@code work} is null
     * @throws IllegalArgumentException when {@code permits} is below 1
     */
    public <T> Flux<T> withPermits(int permits, Supplier<? extends Publisher<T>> work) {
        Checks.notNull(work, "work");
        return Holding.using(taken(permits, null), taken -> work.get(), Taken::release, Taken::giveBack,
                taken -> null); // counted permits have no lease to lose
    }

    /** @return emits how many permits were taken: all those available ({@link DistributedSemaphore#drainPermits()}) */
    public Mono<Integer> drainPermits() {
        return Grants.call(semaphore::drainPermitsAsync);
    }

    /** @param wait null: no limit */
    private Mono<Taken> taken(int permits, Duration wait) {
        Checks.permits(KIND, getName(), permits);
        return Grants.acquire(() -> wait == null
                        ? Grants.Started.of(semaphore.acquireAsync(permits), done -> new Taken(permits))
                        : Grants.Started.of(semaphore.tryAcquireAsync(permits, wait),
                                took -> took ? new Taken(permits) : null),
                Taken::giveBack);
    }

    /** Permits this subscription took and has not given back yet; gives them back once. */
    private final class Taken {
        private final int permits;
        private final AtomicBoolean back = new AtomicBoolean();

        Taken(int permits) {
            this.permits = permits;
        }

        Mono<Void> release() {
            return Mono.defer(() -> back.compareAndSet(false, true)
                    ? Grants.call(() -> semaphore.releaseAsync(permits))
                    : Mono.empty());
        }

        void giveBack() {
            if (back.compareAndSet(false, true)) {
                try {
                    semaphore.releaseAsync(permits);
                } catch (RuntimeException ignored) {
                    // the client is closed: nothing can be sent any more
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ReactiveSemaphore[" + getName() + "]";
    }
}
