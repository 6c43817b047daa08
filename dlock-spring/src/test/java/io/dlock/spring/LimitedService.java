package io.dlock.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A bean with {@link DistributedConcurrencyLimit} methods; one per test instance (context), sharing a {@link Shared}. */
public class LimitedService {

    /** State shared by every instance of the service in a test: overlap counters and a gate. */
    public static final class Shared {
        /** Calls inside a limited method now, and the most ever seen at once. */
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();
        /** Counted down by each call of {@link #hold} once inside. */
        volatile CountDownLatch entered = new CountDownLatch(1);
        /** Opened by the test to let {@link #hold} calls return. */
        volatile CountDownLatch release = new CountDownLatch(1);
    }

    private final Shared shared;
    private LimitedService self;

    public LimitedService(Shared shared) {
        this.shared = shared;
    }

    /** The proxy, for calls that must go through it from inside the bean. */
    void self(LimitedService proxy) {
        this.self = proxy;
    }

    private void inside(Runnable work) {
        int now = shared.inside.incrementAndGet();
        shared.maxInside.accumulateAndGet(now, Math::max);
        try {
            shared.runs.incrementAndGet();
            work.run();
        } finally {
            shared.inside.decrementAndGet();
        }
    }

    @DistributedConcurrencyLimit(name = "partner-api", permits = 3, waitTime = DistributedConcurrencyLimit.WAIT_FOREVER)
    public void callPartner() {
        inside(() -> sleep(20));
    }

    /** Holds one of 2 permits until the test opens {@link Shared#release}. */
    @DistributedConcurrencyLimit(name = "exports:#{#tenant}", permits = 2)
    public String hold(String tenant) {
        inside(() -> {
            shared.entered.countDown();
            await(shared.release);
        });
        return "held " + tenant;
    }

    @DistributedConcurrencyLimit(name = "exports:#{#tenant}", permits = 2, whenBusy = WhenBusy.SKIP)
    public String skipWhenBusy(String tenant) {
        shared.runs.incrementAndGet();
        return "ran " + tenant;
    }

    @DistributedConcurrencyLimit(name = "exports:#{#tenant}", permits = 2, waitTime = "300ms")
    public void waitBriefly(String tenant) {
        shared.runs.incrementAndGet();
    }

    /** Waits as long as it takes for one of the 2 permits that {@link #hold} uses. */
    @DistributedConcurrencyLimit(name = "exports:#{#tenant}", permits = 2,
            waitTime = DistributedConcurrencyLimit.WAIT_FOREVER)
    public String waitForever(String tenant) {
        shared.runs.incrementAndGet();
        return "waited " + tenant;
    }

    /** Waits up to 20 s for one of the 2 permits: long enough for a test to see it waiting before a permit frees. */
    @DistributedConcurrencyLimit(name = "exports:#{#tenant}", permits = 2, waitTime = "20s")
    public void waitPatiently(String tenant) {
        shared.runs.incrementAndGet();
    }

    @DistributedConcurrencyLimit(name = "failing", permits = 1)
    public void fail() {
        throw new IllegalStateException("boom");
    }

    /** Calls itself through the proxy {@code depth} times, under one permit of a 1-permit semaphore. */
    @DistributedConcurrencyLimit(name = "recursive", permits = 1)
    public int recurse(int depth) {
        return depth == 0 ? 0 : 1 + self.recurse(depth - 1);
    }

    @DistributedConcurrencyLimit(name = "short-lease", permits = 1, leaseTime = "300ms")
    public void outliveLease() {
        sleep(1000);
    }

    @DistributedConcurrencyLimit(name = "resized", permits = 4)
    public void resized() {
        shared.runs.incrementAndGet();
    }

    /** Declared as Object, returns deferred work: refused per call. */
    @DistributedConcurrencyLimit(name = "deferred", permits = 1)
    public Object deferred() {
        return CompletableFuture.supplyAsync(() -> "late");
    }

    /** Limited and locked: the permit is taken outside the lock. */
    @DistributedConcurrencyLimit(name = "both", permits = 2, waitTime = DistributedConcurrencyLimit.WAIT_FOREVER)
    @DistributedLocked(name = "both-lock", waitTime = DistributedLocked.WAIT_FOREVER)
    public void limitedAndLocked() {
        inside(() -> sleep(10));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
