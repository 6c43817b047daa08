package io.dlock.bench;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The exactness check of the contended scenarios: who is inside the critical section, and a plain (non-atomic)
 * counter that only matches the number of operations if the lock really excluded.
 */
final class Exclusion {
    private final AtomicInteger writers = new AtomicInteger();
    private final AtomicInteger readers = new AtomicInteger();
    private final AtomicInteger violations = new AtomicInteger();
    private long counter;

    /** An exclusive section: increments the plain counter. */
    void exclusive() {
        if (writers.incrementAndGet() != 1 || readers.get() != 0) {
            violations.incrementAndGet();
        }
        counter++;
        writers.decrementAndGet();
    }

    /** A shared section: must see no writer inside. */
    void shared() {
        readers.incrementAndGet();
        if (writers.get() != 0) {
            violations.incrementAndGet();
        }
        readers.decrementAndGet();
    }

    /** @return "ok", or what went wrong, given how many exclusive sections ran */
    String verdict(long exclusiveOps) {
        if (violations.get() > 0) {
            return "OVERLAP x" + violations.get();
        }
        if (counter != exclusiveOps) {
            return "COUNTER " + counter + " != " + exclusiveOps;
        }
        return "ok";
    }
}
