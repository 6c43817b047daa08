package io.dlock.it.support;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Put in every critical section: counts who is inside and fails as soon as two are.
 *
 * <pre>{@code
 * lock.lock();
 * try {
 *     detector.enter();
 *     try { ... } finally { detector.exit(); }
 * } finally { lock.unlock(); }
 * }</pre>
 *
 * {@link #enter()} throws in the thread that saw the overlap; {@link #maxInside()} keeps the evidence for the test
 * thread, which should assert it at the end (a worker's exception may be lost if nobody looks at its future).
 */
public final class OverlapDetector {
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger maxInside = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();

    /** Marks entry into the critical section; throws {@link AssertionError} if somebody else is inside. */
    public void enter() {
        int now = inside.incrementAndGet();
        maxInside.accumulateAndGet(now, Math::max);
        entries.incrementAndGet();
        if (now > 1) {
            throw new AssertionError("mutual exclusion violated: " + now + " inside the critical section (thread "
                    + Thread.currentThread().getName() + ")");
        }
    }

    /** Marks exit from the critical section. */
    public void exit() {
        int now = inside.decrementAndGet();
        if (now < 0) {
            throw new AssertionError("exit() without enter()");
        }
    }

    /** Runs {@code body} between {@link #enter()} and {@link #exit()}. */
    public void inside(Runnable body) {
        enter();
        try {
            body.run();
        } finally {
            exit();
        }
    }

    /** @return the most threads ever seen inside at once */
    public int maxInside() {
        return maxInside.get();
    }

    /** @return how often the critical section was entered */
    public int entries() {
        return entries.get();
    }

    /** @return how many are inside now */
    public int inside() {
        return inside.get();
    }
}
