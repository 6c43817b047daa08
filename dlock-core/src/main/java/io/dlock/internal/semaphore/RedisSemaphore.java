package io.dlock.internal.semaphore;

import io.dlock.DistributedSemaphore;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * {@link DistributedSemaphore} on Redisson's {@code RSemaphore} wire (docs/protocol.md §13.1): scripts
 * {@code sem_acquire} and {@code sem_update}. Keeps nothing but its keys; every sync method is its async twin
 * awaited.
 */
public final class RedisSemaphore implements DistributedSemaphore {
    static final String KIND = "semaphore";

    private final SemaphoreServices services;
    private final SemaphoreKeys keys;

    public RedisSemaphore(SemaphoreServices services, String name) {
        this.services = services;
        this.keys = SemaphoreKeys.of(name);
    }

    @Override
    public String getName() {
        return keys.name();
    }

    // ---- acquisitions

    @Override
    public void acquire() throws InterruptedException {
        acquire(1);
    }

    @Override
    public CompletableFuture<Void> acquireAsync() {
        return acquireAsync(1);
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        WaitLoop<Boolean> loop = loop(positive(permits, "permits"), -1);
        SyncCalls.awaitInterruptibly(loop.start(), loop::abandon, KIND, getName(), "acquire");
    }

    @Override
    public CompletableFuture<Void> acquireAsync(int permits) {
        WaitLoop<Boolean> loop = loop(positive(permits, "permits"), -1);
        return services.toUser(loop.start(), granted -> (Void) null, loop::abandon, loop::undo, KIND, getName(),
                "acquire");
    }

    @Override
    public boolean tryAcquire() {
        return tryAcquire(1);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync() {
        return tryAcquireAsync(1);
    }

    @Override
    public boolean tryAcquire(int permits) {
        WaitLoop<Boolean> loop = loop(positive(permits, "permits"), 0);
        return SyncCalls.await(loop.start(), KIND, getName(), "tryAcquire") != null;
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits) {
        return tryAcquireAsync(permits, Duration.ZERO);
    }

    @Override
    public boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException {
        WaitLoop<Boolean> loop = loop(positive(permits, "permits"), waitNanos(waitTime));
        return SyncCalls.awaitInterruptibly(loop.start(), loop::abandon, KIND, getName(), "tryAcquire") != null;
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime) {
        WaitLoop<Boolean> loop = loop(positive(permits, "permits"), waitNanos(waitTime));
        return services.toUser(loop.start(), Objects::nonNull, loop::abandon, loop::undo, KIND, getName(),
                "tryAcquire");
    }

    /** @param waitNanos 0 for one attempt, negative for no limit */
    private WaitLoop<Boolean> loop(int permits, long waitNanos) {
        services.checkOpen(getName());
        String count = Integer.toString(permits);
        return new WaitLoop<>(services, getName(), false, keys.channel(), new WaitLoop.Steps<>() {
            @Override
            public CompletableFuture<WaitLoop.Reply<Boolean>> attempt() {
                return services.<Long>run(SemaphoreScripts.SEM_ACQUIRE, ScriptOutputType.INTEGER, keys.count(),
                        count).thenApply(r -> r == 1L ? new WaitLoop.Reply<>(Boolean.TRUE, 0)
                        : WaitLoop.Reply.busy(0));
            }

            @Override
            public void undo(Boolean granted) {
                update("add", permits, 0);
            }
        }, waitNanos);
    }

    static long waitNanos(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
        }
        return waitTime.toNanos();
    }

    static int positive(int permits, String what) {
        if (permits < 1) {
            throw new IllegalArgumentException(what + " must be at least 1: " + permits);
        }
        return permits;
    }

    static int notNegative(int permits, String what) {
        if (permits < 0) {
            throw new IllegalArgumentException(what + " must not be negative: " + permits);
        }
        return permits;
    }

    static long ttlMillis(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.toMillis() < 1) {
            throw new IllegalArgumentException("ttl must be at least 1 ms: " + ttl);
        }
        return ttl.toMillis();
    }

    static int notZero(int delta) {
        if (delta == 0) {
            throw new IllegalArgumentException("delta must not be 0");
        }
        return delta;
    }

    // ---- changes of the count

    private CompletableFuture<Long> update(String mode, int permits, long ttlMs) {
        return services.run(SemaphoreScripts.SEM_UPDATE, ScriptOutputType.INTEGER, keys.count(), mode,
                Integer.toString(permits), Long.toString(ttlMs), services.publishCommand, keys.channel());
    }

    private <T> T sync(CompletableFuture<T> future, String operation) {
        return SyncCalls.await(future, KIND, getName(), operation);
    }

    private <T> CompletableFuture<T> async(CompletableFuture<T> future, String operation) {
        return services.toUser(future, KIND, getName(), operation);
    }

    private CompletableFuture<Boolean> trySet(int permits, long ttlMs) {
        services.checkOpen(getName());
        return update("try-set", notNegative(permits, "permits"), ttlMs).thenApply(r -> r == 1L);
    }

    @Override
    public boolean trySetPermits(int permits) {
        return sync(trySet(permits, 0), "trySetPermits");
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits) {
        return async(trySet(permits, 0), "trySetPermits");
    }

    @Override
    public boolean trySetPermits(int permits, Duration ttl) {
        return sync(trySet(permits, ttlMillis(ttl)), "trySetPermits");
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration ttl) {
        return async(trySet(permits, ttlMillis(ttl)), "trySetPermits");
    }

    private CompletableFuture<Void> change(String mode, int permits) {
        services.checkOpen(getName());
        return update(mode, permits, 0).thenApply(r -> null);
    }

    @Override
    public void setPermits(int permits) {
        sync(change("set", permits), "setPermits");
    }

    @Override
    public CompletableFuture<Void> setPermitsAsync(int permits) {
        return async(change("set", permits), "setPermits");
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return releaseAsync(1);
    }

    @Override
    public void release(int permits) {
        sync(change("add", positive(permits, "permits")), "release");
    }

    @Override
    public CompletableFuture<Void> releaseAsync(int permits) {
        return async(change("add", positive(permits, "permits")), "release");
    }

    @Override
    public void addPermits(int delta) {
        sync(change("add", notZero(delta)), "addPermits");
    }

    @Override
    public CompletableFuture<Void> addPermitsAsync(int delta) {
        return async(change("add", notZero(delta)), "addPermits");
    }

    private CompletableFuture<Integer> drain() {
        services.checkOpen(getName());
        return update("drain", 0, 0).thenApply(Long::intValue);
    }

    @Override
    public int drainPermits() {
        return sync(drain(), "drainPermits");
    }

    @Override
    public CompletableFuture<Integer> drainPermitsAsync() {
        return async(drain(), "drainPermits");
    }

    private CompletableFuture<Integer> available() {
        services.checkOpen(getName());
        return services.redis.get(getName()).toCompletableFuture().thenApply(v -> {
            if (v == null) {
                return 0;
            }
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new io.dlock.NotALockException(getName(), "semaphore '" + getName()
                        + "': availablePermits refused: the key holds a string that is not a permit count", null);
            }
        });
    }

    @Override
    public int availablePermits() {
        return sync(available(), "availablePermits");
    }

    @Override
    public CompletableFuture<Integer> availablePermitsAsync() {
        return async(available(), "availablePermits");
    }

    private CompletableFuture<Boolean> deleteKey() {
        services.checkOpen(getName());
        return services.redis.del(getName()).toCompletableFuture().thenApply(n -> n > 0);
    }

    @Override
    public boolean delete() {
        return sync(deleteKey(), "delete");
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return async(deleteKey(), "delete");
    }

    @Override
    public String toString() {
        return "DistributedSemaphore{" + getName() + "}";
    }
}
