package io.dlock.reactor;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LatchInfo;
import io.dlock.LockClient;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * A count-down latch for Reactor pipelines, over {@link DistributedCountDownLatch} (Redisson's
 * {@code RCountDownLatch} wire). An await takes nothing, so cancelling it only stops the wait.
 *
 * <p>Lazy (each subscription does its work anew), never blocks, signals on the client's executor, bad arguments
 * thrown when the Mono is made (naming the latch), Redis failures as error signals ({@link io.dlock.LockException}).
 * Thread-safe.
 */
public final class ReactiveCountDownLatch {
    private static final String KIND = "count-down latch";

    private final LockClient client;
    private final DistributedCountDownLatch latch;

    ReactiveCountDownLatch(LockClient client, DistributedCountDownLatch latch) {
        this.client = client;
        this.latch = latch;
    }

    /** @return the latch's name */
    public String getName() {
        return latch.getName();
    }

    /**
     * @param count the count, from 1 to {@link DistributedCountDownLatch#MAX_COUNT}
     * @return emits whether the count was set: only when the latch was not set (or had reached zero)
     * @throws IllegalArgumentException when {@code count} is out of range
     */
    public Mono<Boolean> trySetCount(long count) {
        count(count);
        return Grants.call(() -> latch.trySetCountAsync(count));
    }

    /**
     * {@link #trySetCount(long)} with a time to live for the latch's key.
     *
     * @throws IllegalArgumentException when {@code count} is out of range, or {@code ttl} is shorter than 1 ms or
     *                                  longer than {@link DistributedCountDownLatch#MAX_TTL}
     * @throws NullPointerException     when {@code ttl} is null
     */
    public Mono<Boolean> trySetCount(long count, Duration ttl) {
        count(count);
        Checks.lease(KIND, getName(), "ttl", ttl);
        return Grants.call(() -> latch.trySetCountAsync(count, ttl));
    }

    /** Counts down by one ({@link DistributedCountDownLatch#countDown()}); completes empty. */
    public Mono<Void> countDown() {
        return Grants.call(latch::countDownAsync);
    }

    /** @return emits the count (0 when the latch is open or was never set) */
    public Mono<Long> getCount() {
        return Grants.call(latch::getCountAsync);
    }

    /** @return emits the remaining time to live of the latch's key in ms, as {@link DistributedCountDownLatch#remainTimeToLive()} */
    public Mono<Long> remainTimeToLive() {
        return Grants.call(latch::remainTimeToLiveAsync);
    }

    /** @return completes empty when the latch is open; cancelling stops the wait ({@link DistributedCountDownLatch#awaitAsync()}) */
    public Mono<Void> await() {
        return Grants.call(latch::awaitAsync);
    }

    /**
     * @param timeout how long to wait; zero checks once
     * @return emits true when the latch opened within {@code timeout}, false when the time ran out (also with the
     *         last check still unanswered while Redis is healthy); fails with {@link io.dlock.LockException} when
     *         Redis fails or is unavailable (connection down, or no answer for a command timeout), the rule of
     *         {@link io.dlock.DistributedCountDownLatch#await(long, java.util.concurrent.TimeUnit)}
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    public Mono<Boolean> await(Duration timeout) {
        Checks.waitTime(KIND, getName(), "timeout", timeout);
        return Grants.call(() -> latch.awaitAsync(timeout));
    }

    /** @return emits whether the latch existed before it was deleted */
    public Mono<Boolean> delete() {
        return Grants.call(latch::deleteAsync);
    }

    /** @return emits a read-only snapshot of the latch ({@link LockClient#inspectCountDownLatch(String)}) */
    public Mono<LatchInfo> inspect() {
        return Grants.call(() -> client.inspectCountDownLatchAsync(getName()));
    }

    private void count(long count) {
        Checks.within(KIND, getName(), "count", count, 1, DistributedCountDownLatch.MAX_COUNT);
    }

    @Override
    public String toString() {
        return "ReactiveCountDownLatch[" + getName() + "]";
    }
}
