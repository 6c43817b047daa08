package io.dlock.reactor;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A semaphore of leased permits for Reactor pipelines, over {@link LeasedSemaphore} (Redisson's
 * {@code RPermitExpirableSemaphore} wire): each permit has an id and a lease, and comes back by itself when its
 * holder dies. The emitted {@link Permit}s act as the core's handles (each method is the core permit's): release one
 * with {@link #release(Permit)} (or its own {@code releaseAsync()}); {@link #withPermit(Function)} does it around a
 * publisher.
 *
 * <p>Same contract as {@link ReactiveLock}: lazy (each subscription acquires anew), cancellation leaves no permit
 * held (one granted as the cancel came is released), nothing blocks, signals on the client's executor, bad arguments
 * thrown when the Mono is made (naming the semaphore), Redis failures as error signals
 * ({@link io.dlock.LockException}). The methods without a lease take watchdog-renewed permits. Thread-safe.
 */
public final class ReactiveLeasedSemaphore extends ReactivePermitCounter {
    private static final String KIND = "leased semaphore";

    private final LeasedSemaphore semaphore;

    ReactiveLeasedSemaphore(LockClient client, LeasedSemaphore semaphore) {
        super(client, semaphore, KIND, 0);
        this.semaphore = semaphore;
    }

    /** @return emits a watchdog-renewed permit once one is free, waiting as long as it takes */
    public Mono<Permit> acquire() {
        return one(() -> Grants.Started.of(semaphore.acquireAsync(), this::watched));
    }

    /**
     * @param lease the permit's lease, from 1 ms to {@link io.dlock.DistributedLock#MAX_LEASE}
     * @return emits a permit with that lease once one is free, waiting as long as it takes
     * @throws IllegalArgumentException when {@code lease} is out of range
     */
    public Mono<Permit> acquire(Duration lease) {
        Checks.lease(KIND, getName(), "leaseTime", lease);
        return one(() -> Grants.Started.of(semaphore.acquireAsync(lease), this::watched));
    }

    /**
     * @param wait how long to wait: zero is one attempt
     * @return emits a watchdog-renewed permit, or completes empty when none came within {@code wait}, also when Redis's
     *         answer was still on its way while Redis is healthy (a late permit is given back); fails with
     *         {@link io.dlock.LockException} when Redis fails or is unavailable (connection down, or no answer for a
     *         command timeout), the rule of {@link io.dlock.LeasedSemaphore#tryAcquire(Duration)}
     * @throws IllegalArgumentException when {@code wait} is negative
     */
    public Mono<Permit> tryAcquire(Duration wait) {
        Checks.waitTime(KIND, getName(), "waitTime", wait);
        return one(() -> Grants.Started.of(semaphore.tryAcquireAsync(wait),
                found -> found.map(this::watched).orElse(null)));
    }

    /**
     * @return emits a permit with {@code lease}, or completes empty when none came within {@code wait} (a slow
     *         answer included), as {@link #tryAcquire(Duration)}
     * @throws IllegalArgumentException when {@code wait} is negative or {@code lease} out of range
     */
    public Mono<Permit> tryAcquire(Duration wait, Duration lease) {
        Checks.waitTime(KIND, getName(), "waitTime", wait);
        Checks.lease(KIND, getName(), "leaseTime", lease);
        return one(() -> Grants.Started.of(semaphore.tryAcquireAsync(wait, lease),
                found -> found.map(this::watched).orElse(null)));
    }

    /**
     * Takes {@code permits} permits at once (all or none), watchdog-renewed, waiting as long as it takes.
     *
     * @param permits from 1 to {@link LeasedSemaphore#MAX_PERMITS_AT_ONCE}
     * @return emits the permits
     * @throws IllegalArgumentException when {@code permits} is out of range
     */
    public Mono<List<Permit>> acquire(int permits) {
        Checks.within(KIND, getName(), "permits", permits, 1, LeasedSemaphore.MAX_PERMITS_AT_ONCE);
        return Grants.acquire(() -> Grants.Started.of(semaphore.acquireAsync(permits),
                        taken -> new Permits(taken.stream().map(this::watched).toList())), Permits::giveBack)
                .map(Permits::list);
    }

    /**
     * Releases {@code permit} ({@link Permit#releaseAsync()}).
     *
     * @return emits true when it was still held; false when its lease had ended or another client released its id;
     *         fails with {@link IllegalStateException} when this handle was released already
     */
    public Mono<Boolean> release(Permit permit) {
        Checks.notNull(permit, "permit");
        return Grants.call(permit::releaseAsync);
    }

    /**
     * Holds one watchdog-renewed permit exactly while the publisher from {@code work} runs: takes it when
     * subscribed, subscribes to the work, releases it when the work completes, fails or is cancelled. The rules of
     * {@link ReactiveLock#withLock(Function)} hold: a cancel goes through the work before the permit is released (and
     * a cancel while waiting never calls the work), and a permit lost while the work runs (its id released by another
     * client, its lease run out, the semaphore deleted) cancels the work, then fails the Flux with
     * {@link io.dlock.LockLostException} naming the semaphore.
     *
     * @throws NullPointerException when {@code work} is null
     */
    public <T> Flux<T> withPermit(Function<? super Permit, ? extends Publisher<T>> work) {
        Checks.notNull(work, "work");
        return using(acquire(), work);
    }

    /**
     * The work of {@link #withPermit(Function)} over any acquisition of one permit of this class, such as
     * {@code tryAcquire(wait, lease)}: the permit is held exactly while the work runs, and released when it completes,
     * fails or is cancelled (also when the cancel crosses the grant), with {@code withPermit}'s rules for a cancel and
     * a lost permit (a fixed lease that runs out before the work ends is a lost permit). When the acquisition
     * completes empty, the work is not run and the Flux completes empty. A permit that no method of this class
     * emitted is held and released the same way, but not watched for loss.
     *
     * @throws NullPointerException when an argument is null
     */
    public static <T> Flux<T> using(Mono<Permit> acquisition,
                                    Function<? super Permit, ? extends Publisher<T>> work) {
        Checks.notNull(acquisition, "acquisition");
        Checks.notNull(work, "work");
        return Holding.using(acquisition, work, ReactiveLeasedSemaphore::releaseOnce, ReactiveLeasedSemaphore::giveBack,
                permit -> permit instanceof WatchedPermit watched ? watched.lost() : null);
    }

    /** @return emits the permits held now, by any client */
    public Mono<Integer> acquiredPermits() {
        return Grants.call(semaphore::acquiredPermitsAsync);
    }

    private Permit watched(Permit permit) {
        return new WatchedPermit(client(), permit);
    }

    private Mono<Permit> one(Supplier<Grants.Started<Permit>> start) {
        return Grants.acquire(start, ReactiveLeasedSemaphore::giveBack);
    }

    /** The release of {@code withPermit}: one release of the handle, whichever of the three paths asks. */
    private static Mono<Void> releaseOnce(Permit permit) {
        return Grants.call(permit::releaseAsync).onErrorResume(IllegalStateException.class, released -> Mono.empty())
                .then();
    }

    /** A permit no subscriber will see; never throws. */
    static void giveBack(Permit permit) {
        try {
            permit.releaseAsync();
        } catch (RuntimeException ignored) {
            // released already, or the client is closed: the permit comes back with its lease
        }
    }

    /** Permits taken at once by one subscription. */
    private record Permits(List<Permit> list) {
        void giveBack() {
            list.forEach(ReactiveLeasedSemaphore::giveBack);
        }
    }

    @Override
    public String toString() {
        return "ReactiveLeasedSemaphore[" + getName() + "]";
    }
}
