package io.dlock.bench;

import org.HdrHistogram.AtomicHistogram;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link Load} on virtual threads: thousands of them, so they share one histogram and one operation count instead of
 * one each.
 *
 * <p>Contract: every thread starts its loop at once; none begins an operation after {@code duration}; the run ends
 * when every thread has finished the operation it was in at that moment (those operations count, and the wall time
 * includes that tail, as in {@link Load}). A thread still in an operation {@code drain} after the end is a failure of
 * the run ("hung"): the waiters of one name can take long to drain, and the run must not wait for ever.
 */
final class VirtualLoad {
    private VirtualLoad() {
    }

    static Load.Result run(int threads, Duration duration, Duration drain, Load.Operation operation)
            throws InterruptedException {
        ThreadFactory factory = VirtualThreads.factory("bench-vt-");
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        long[] end = new long[1]; // written before go opens, read after: the latch orders them
        AtomicHistogram latency = new AtomicHistogram(Measurement.newHistogram().getHighestTrackableValue(), 3);
        LongAdder ops = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread worker = factory.newThread(() -> {
                try {
                    ready.countDown();
                    go.await();
                    while (failure.get() == null) {
                        long begin = System.nanoTime();
                        if (begin - end[0] >= 0) {
                            break;
                        }
                        operation.run(index);
                        long micros = (System.nanoTime() - begin) / 1000;
                        latency.recordValue(Math.min(micros, latency.getHighestTrackableValue()));
                        ops.increment();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            });
            worker.start();
        }
        ready.await();
        long start = System.nanoTime();
        end[0] = start + duration.toNanos();
        go.countDown();
        if (!done.await(duration.toNanos() + drain.toNanos(), TimeUnit.NANOSECONDS)) {
            failure.compareAndSet(null, new IllegalStateException("HUNG: " + done.getCount() + " of " + threads
                    + " virtual threads still in an operation " + drain.toSeconds() + " s after the end"));
        }
        long stop = System.nanoTime();
        Histogram main = Measurement.newHistogram();
        main.add(latency);
        return new Load.Result(ops.sum(), (stop - start) / 1e9, main, null, failure.get());
    }
}
