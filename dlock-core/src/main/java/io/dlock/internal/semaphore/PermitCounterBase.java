package io.dlock.internal.semaphore;

import io.dlock.PermitCounter;
import io.dlock.internal.acquire.Args;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * What both semaphores do alike ({@link PermitCounter}), written once: argument checks, the sync form of each call as
 * a wait on its internal future ({@link SemaphoreServices#sync}), the async form handed to the caller on the
 * client's executor ({@link SemaphoreServices#async}), errors named after the kind and the semaphore. Each kind gives
 * the internal operations over its own scripts.
 */
abstract class PermitCounterBase implements PermitCounter {
    final SemaphoreServices services;
    final SemaphoreKeys keys;
    /** What errors call this kind ("semaphore", "leased semaphore"). */
    private final String kind;

    PermitCounterBase(SemaphoreServices services, String name, String kind) {
        this.services = services;
        this.keys = SemaphoreKeys.of(name);
        this.kind = kind;
    }

    @Override
    public String getName() {
        return keys.name();
    }

    /** Sets the count if the key is missing ({@code ttlMs} 0: no TTL); permits already checked (≥ 0). */
    abstract CompletableFuture<Boolean> trySet(int permits, long ttlMs);

    /** Sets the count (the plain semaphore) or the total (the leased one) to {@code permits}, unchecked. */
    abstract CompletableFuture<Void> set(int permits);

    /** Adds {@code delta} (not 0) to the count. */
    abstract CompletableFuture<Void> add(int delta);

    abstract CompletableFuture<Integer> available();

    /** Removes the kind's keys, only if they are its own; others are refused, untouched. */
    abstract CompletableFuture<Boolean> deleteKeys();

    <T> T sync(CompletableFuture<T> future, String operation) {
        return services.sync(future, kind, getName(), operation);
    }

    <T> CompletableFuture<T> async(CompletableFuture<T> future, String operation) {
        return services.async(future, kind, getName(), operation);
    }

    private CompletableFuture<Boolean> trySetChecked(int permits, long ttlMs) {
        services.checkOpen(kind, getName());
        return trySet(Args.atLeast(kind, getName(), "permits", permits, 0), ttlMs);
    }

    private long ttlMillis(Duration ttl) {
        return Args.durationMillis(kind, getName(), "ttl", ttl);
    }

    @Override
    public boolean trySetPermits(int permits) {
        return sync(trySetChecked(permits, 0), "trySetPermits");
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits) {
        return async(trySetChecked(permits, 0), "trySetPermits");
    }

    @Override
    public boolean trySetPermits(int permits, Duration ttl) {
        return sync(trySetChecked(permits, ttlMillis(ttl)), "trySetPermits");
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration ttl) {
        return async(trySetChecked(permits, ttlMillis(ttl)), "trySetPermits");
    }

    /** @param permits checked by the kind ({@link #set}'s meaning differs) */
    CompletableFuture<Void> setChecked(int permits) {
        services.checkOpen(kind, getName());
        return set(permits);
    }

    @Override
    public void setPermits(int permits) {
        sync(setChecked(permits), "setPermits");
    }

    @Override
    public CompletableFuture<Void> setPermitsAsync(int permits) {
        return async(setChecked(permits), "setPermits");
    }

    private CompletableFuture<Void> addChecked(int delta) {
        services.checkOpen(kind, getName());
        return add(Args.notZero(kind, getName(), "delta", delta));
    }

    @Override
    public void addPermits(int delta) {
        sync(addChecked(delta), "addPermits");
    }

    @Override
    public CompletableFuture<Void> addPermitsAsync(int delta) {
        return async(addChecked(delta), "addPermits");
    }

    @Override
    public int availablePermits() {
        return sync(available(), "availablePermits");
    }

    @Override
    public CompletableFuture<Integer> availablePermitsAsync() {
        return async(available(), "availablePermits");
    }

    @Override
    public boolean delete() {
        return sync(deleteKeys(), "delete");
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return async(deleteKeys(), "delete");
    }
}
