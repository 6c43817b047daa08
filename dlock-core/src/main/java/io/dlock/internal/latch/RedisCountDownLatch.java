package io.dlock.internal.latch;

import io.dlock.DistributedCountDownLatch;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.SyncWaits;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@link DistributedCountDownLatch}: the API over the latch's {@link LatchProtocol} (what each operation sends)
 * and the client's {@link LatchGroups} (awaits), as the lock API is over {@code RedisLock}. Immutable and
 * thread-safe.
 *
 * <p>Sync methods wait for the protocol's answer as it comes (on the thread that brings it: a sync {@code countDown()}
 * wakes its caller once, not after a hop through the executor); async ones hand it to the client's executor. Only
 * {@code await} is interruptible (the others are one round trip, bounded by the command timeout, and keep the
 * interrupt flag).
 */
final class RedisCountDownLatch implements DistributedCountDownLatch {
    private final LatchParts parts;
    private final LatchProtocol protocol;
    private final LatchGroups groups;

    RedisCountDownLatch(LatchParts parts, LatchProtocol protocol, LatchGroups groups) {
        this.parts = parts;
        this.protocol = protocol;
        this.groups = groups;
    }

    @Override
    public String getName() {
        return protocol.name();
    }

    @Override
    public boolean trySetCount(long count) {
        return join(protocol.trySet(count, 0));
    }

    @Override
    public boolean trySetCount(long count, Duration ttl) {
        return join(protocol.trySet(count, protocol.ttlMillis(ttl)));
    }

    @Override
    public void countDown() {
        join(countedDown());
    }

    @Override
    public long getCount() {
        return join(getCountAsync());
    }

    @Override
    public long remainTimeToLive() {
        return join(remainTimeToLiveAsync());
    }

    @Override
    public boolean delete() {
        return join(protocol.delete());
    }

    @Override
    public void await() throws InterruptedException {
        awaitInterruptibly(-1);
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitInterruptibly(timeoutMillis(timeout, unit));
    }

    private boolean awaitInterruptibly(long timeoutMs) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException(LatchProtocol.describe(getName()) + ": interrupted before waiting");
        }
        CompletableFuture<Boolean> wait = groups.await(protocol, timeoutMs);
        // the one interrupt rule: an await takes nothing, so abandoning it is cancelling it
        return parts.waits().awaitOrAbandon(SyncWaits.mapped(wait, LatchProtocol.KIND, getName(), "await"), () -> {
            wait.cancel(false);
            return CompletableFuture.completedFuture(null);
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetCountAsync(long count) {
        return handOff(protocol.trySet(count, 0), "trySetCount");
    }

    @Override
    public CompletableFuture<Boolean> trySetCountAsync(long count, Duration ttl) {
        return handOff(protocol.trySet(count, protocol.ttlMillis(ttl)), "trySetCount");
    }

    @Override
    public CompletableFuture<Void> countDownAsync() {
        return handOff(countedDown(), "countDown");
    }

    private CompletableFuture<Void> countedDown() {
        return protocol.countDown().thenApply(left -> {
            parts.events().get().latchCountedDown(getName());
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> getCountAsync() {
        return handOff(protocol.state().thenApply(LatchProtocol.State::count), "getCount");
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return handOff(protocol.state().thenApply(LatchProtocol.State::pttl), "remainTimeToLive");
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return handOff(protocol.delete(), "delete");
    }

    @Override
    public CompletableFuture<Void> awaitAsync() {
        CompletableFuture<Boolean> wait = groups.await(protocol, -1);
        return cancelling(handOff(wait.thenApply(open -> (Void) null), "await"), wait);
    }

    @Override
    public CompletableFuture<Boolean> awaitAsync(long timeout, TimeUnit unit) {
        CompletableFuture<Boolean> wait = groups.await(protocol, timeoutMillis(timeout, unit));
        return cancelling(handOff(wait, "await"), wait);
    }

    /**
     * @return the wait in ms: 0 for a negative {@code timeout}, -1 (no limit) for one longer than {@link #MAX_TTL}
     *         (as a lock's wait), so that no deadline overflows
     */
    private static long timeoutMillis(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        long ms = unit.toMillis(timeout);
        return ms > MAX_TTL.toMillis() ? -1 : Math.max(0, ms);
    }

    /** @return {@code user}, whose cancellation cancels {@code wait} (which leaves its group) */
    private static <T> CompletableFuture<T> cancelling(CompletableFuture<T> user, CompletableFuture<Boolean> wait) {
        user.whenComplete((value, error) -> {
            if (user.isCancelled()) {
                wait.cancel(false);
            }
        });
        return user;
    }

    /** {@code inner} completed on the client's executor, failures named after the latch and {@code operation}. */
    private <T> CompletableFuture<T> handOff(CompletableFuture<T> inner, String operation) {
        return Callers.toCaller(parts.acquisitions().executor(), null, null, inner,
                error -> Errors.toApi(error, LatchProtocol.KIND, getName(), operation));
    }

    /** Waits for a one-round-trip operation, uninterruptibly (the interrupt flag is kept). */
    private <T> T join(CompletableFuture<T> future) {
        return parts.waits().awaitUninterruptibly(future, LatchProtocol.KIND, getName(), "call");
    }

    @Override
    public String toString() {
        return "RedisCountDownLatch{" + getName() + "}";
    }
}
