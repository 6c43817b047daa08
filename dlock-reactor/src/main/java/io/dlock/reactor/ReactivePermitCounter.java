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
 * out of range is refused by the core at subscription, naming the semaphore. Thread-safe.
 */
public abstract sealed class ReactivePermitCounter permits ReactiveSemaphore, ReactiveLeasedSemaphore {
    private final LockClient client;
    private final PermitCounter counter;

    ReactivePermitCounter(LockClient client, PermitCounter counter) {
        this.client = client;
        this.counter = counter;
    }

    /** @return the semaphore's name */
    public String getName() {
        return counter.getName();
    }

    /** @return emits the permits available now ({@link PermitCounter#availablePermits()}) */
    public Mono<Integer> availablePermits() {
        return Grants.call(counter::availablePermitsAsync);
    }

    /** @return emits whether the count was set: only when the semaphore had no count yet */
    public Mono<Boolean> trySetPermits(int permits) {
        return Grants.call(() -> counter.trySetPermitsAsync(permits));
    }

    /** Sets the count of permits, whatever it was ({@link PermitCounter#setPermits(int)}). */
    public Mono<Void> setPermits(int permits) {
        return Grants.call(() -> counter.setPermitsAsync(permits));
    }

    /** Adds {@code delta} permits (negative: removes them) ({@link PermitCounter#addPermits(int)}). */
    public Mono<Void> addPermits(int delta) {
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
