package io.dlock.reactor;

import reactor.core.publisher.Flux;
import reactor.core.publisher.SignalType;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Who is inside a section that a lock (or a semaphore's permits) guards: counts the entries and the most holders
 * inside at once, the invariant of the exclusion tests (at most one for a lock, at most the permits for a
 * semaphore), and keeps who was inside the first time there were more than that, for the failure message. A holder
 * enters once it holds and leaves before it gives back; a reactive work leaves when its own end has run
 * ({@link #counted}). Thread-safe, never blocks.
 */
final class Occupancy {
    private final int capacity;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();
    private final Set<String> holders = ConcurrentHashMap.newKeySet();
    private final AtomicReference<String> firstExcess = new AtomicReference<>();

    /** @param capacity how many may be inside at once */
    Occupancy(int capacity) {
        this.capacity = capacity;
    }

    /**
     * @param who the holder, for the failure message
     * @return the entry, to {@link #leave} with
     */
    String enter(String who) {
        String entry = who + " #" + entries.incrementAndGet();
        holders.add(entry);
        int now = inside.incrementAndGet();
        most.accumulateAndGet(now, Math::max);
        if (now > capacity) {
            firstExcess.compareAndSet(null, holders.toString());
        }
        return entry;
    }

    void leave(String entry) {
        holders.remove(entry);
        inside.decrementAndGet();
    }

    /**
     * @return {@code work}, inside from its subscription (a hold scope subscribes to it only once it holds) until its
     *         own end: on complete or error before the signal goes downstream (where the scope gives back), on a cancel
     *         once the cancel has gone through the work and returned (its cancel hooks upstream have run)
     */
    <T> Flux<T> counted(Flux<T> work, String who) {
        AtomicReference<String> entry = new AtomicReference<>();
        return work.doOnSubscribe(s -> entry.set(enter(who)))
                .doOnTerminate(() -> leave(entry.get()))
                .doFinally(signal -> {
                    if (signal == SignalType.CANCEL) {
                        leave(entry.get());
                    }
                });
    }

    /** @return how many are inside now */
    int inside() {
        return inside.get();
    }

    /** @return the most that were inside at once */
    int most() {
        return most.get();
    }

    /** @return how many entered */
    int entries() {
        return entries.get();
    }

    /** @return who was inside the first time there were more than the capacity, or null */
    String firstExcess() {
        return firstExcess.get();
    }
}
