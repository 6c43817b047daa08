package io.dlock.spring;

/**
 * What a {@link DistributedLocked} method does when its lock is still held by someone else after the wait time, and
 * what a {@link DistributedConcurrencyLimit} method does when all its permits are still taken.
 */
public enum WhenBusy {
    /**
     * Throw {@link LockBusyException} naming the lock ({@link ConcurrencyLimitReachedException}, a subclass, naming the
     * semaphore); the method does not run.
     */
    THROW,
    /**
     * Return without running the method: {@code null} for {@code void} and reference types, zero or {@code false} for
     * primitives, an empty {@link java.util.Optional} (or {@code OptionalInt}/{@code OptionalLong}/
     * {@code OptionalDouble}) for those types, an empty {@code Mono} or {@code Flux} for a method returning one. The
     * usual choice for {@code @Scheduled} jobs.
     */
    SKIP
}
