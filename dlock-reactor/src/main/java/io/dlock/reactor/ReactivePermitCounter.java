package io.dlock.reactor;

import io.dlock.LockClient;
import io.dlock.PermitCounter;
import io.dlock.SemaphoreInfo;
import reactor.core.publisher.Mono;

/**
 * What both reactive semaphores share, over the core's {@link PermitCounter}: the count of permits in Redis, read and
 * changed without taking any. Acquiring and giving back differ between the two kinds and live in
 * {@link ReactiveSemaphore} and {@link ReactiveLeasedSemaphore}.
 *
 * <p>Every method is lazy (each subscription sends anew), never blocks, signals on the client's executor, and reports
 * Redis failures (and a key that is not this semaphore's) as error signals ({@link io.dlock.LockException}). A count
 * out of range is thrown when the Mono is made ({@link IllegalArgumentException}, naming the semaphore). Thread-safe.
 */
public abstract sealed class ReactivePermitCounter permits ReactiveSemaphore, ReactiveLeasedSemaphore {
    private final LockClient client;
    private final PermitCounter counter;
    private final String kind;
    /** The least count {@link #setPermits(int)} takes: the kind's bound. */
    private final int leastSet;

    ReactivePermitCounter(LockClient client, PermitCounter counter, String kind, int leastSet) {
        this.client = client;
        this.counter = counter;
        this.kind = kind;
        this.leastSet = leastSet;
    }

    /** The client this semaphore works through. */
    LockClient client() {
        return client;
    }

    /** @return the semaphore's name */
    public String getName() {
        return counter.getName();
    }

    /** @return emits the permits available now ({@link PermitCounter#availablePermits()}) */
    public Mono<Integer> availablePermits() {
        return Grants.call(counter::availablePermitsAsync);
    }

    /**
     * @param permits the initial count, at least 0
     * @return emits whether the count was set: only when the semaphore had no count yet
     * @throws IllegalArgumentException when {@code permits} is negative
     */
    public Mono<Boolean> trySetPermits(int permits) {
        Checks.within(kind, getName(), "permits", permits, 0, Integer.MAX_VALUE);
        return Grants.call(() -> counter.trySetPermitsAsync(permits));
    }

    /**
     * Sets the count of permits, whatever it was ({@link PermitCounter#setPermits(int)}).
     *
     * @param permits the new count: any for a {@link ReactiveSemaphore}, at least 0 for a
     *                {@link ReactiveLeasedSemaphore} (its total of permits)
     * @throws IllegalArgumentException when {@code permits} is below the kind's bound
     */
    public Mono<Void> setPermits(int permits) {
        Checks.within(kind, getName(), "permits", permits, leastSet, Integer.MAX_VALUE);
        return Grants.call(() -> counter.setPermitsAsync(permits));
    }

    /**
     * Adds {@code delta} permits (negative: removes them) ({@link PermitCounter#addPermits(int)}).
     *
     * @throws IllegalArgumentException when {@code delta} is 0
     */
    public Mono<Void> addPermits(int delta) {
        Checks.notZero(kind, getName(), "delta", delta);
        return Grants.call(() -> counter.addPermitsAsync(delta));
    }

    /** @return emits whether the semaphore existed before it was deleted ({@link PermitCounter#delete()}) */
    public Mono<Boolean> delete() {
        return Grants.call(counter::deleteAsync);
    }

    /** @return emits a read-only snapshot of the semaphore ({@link LockClient#inspectSemaphore(String)}) */
    public Mono<SemaphoreInfo> inspect() {
        return Grants.call(() -> client.inspectSemaphoreAsync(getName()));
    }
}
