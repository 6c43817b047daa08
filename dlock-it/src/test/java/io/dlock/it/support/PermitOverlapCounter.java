package io.dlock.it.support;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts who is inside a section guarded by a semaphore of {@code permits} permits and fails as soon as more are:
 * the semaphore's {@link OverlapDetector}. {@link #enter()} throws in the thread that saw the excess;
 * {@link #maxInside()} keeps the evidence for the test thread.
 */
public final class PermitOverlapCounter {
    private final int permits;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger maxInside = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();

    public PermitOverlapCounter(int permits) {
        this.permits = permits;
    }

    public void enter() {
        int now = inside.incrementAndGet();
        maxInside.accumulateAndGet(now, Math::max);
        entries.incrementAndGet();
        if (now > permits) {
            throw new AssertionError(now + " inside a section of " + permits + " permits (thread "
                    + Thread.currentThread().getName() + ")");
        }
    }

    public void exit() {
        if (inside.decrementAndGet() < 0) {
            throw new AssertionError("exit() without enter()");
        }
    }

    /** {@link #enter()}, stays inside for about a millisecond, {@link #exit()}: one pass through the section. */
    public void passThrough() throws InterruptedException {
        enter();
        try {
            Thread.sleep(1);
        } finally {
            exit();
        }
    }

    public int maxInside() {
        return maxInside.get();
    }

    public int entries() {
        return entries.get();
    }
}
