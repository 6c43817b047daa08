package io.dlock.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

/** Runs a loop body on N threads for a fixed time, recording each operation's latency. */
final class Load {
    private Load() {
    }

    /** One thread's loop body: performs one operation; returns whether it counts (true) and which histogram. */
    interface Operation {
        /**
         * @param thread the thread's index
         * @return true to record the latency in the scenario's main histogram, false for its extra one
         */
        boolean run(int thread) throws Exception;
    }

    record Result(long ops, double seconds, Histogram main, Histogram extra, Throwable failure) {
    }

    static Result run(int threads, Duration duration, Operation operation) throws InterruptedException {
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        long[] ops = new long[threads];
        List<Histogram> mains = new ArrayList<>();
        List<Histogram> extras = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        long[] window = new long[2];
        for (int t = 0; t < threads; t++) {
            Histogram main = Measurement.newHistogram();
            Histogram extra = Measurement.newHistogram();
            mains.add(main);
            extras.add(extra);
            int index = t;
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    long end = System.nanoTime() + duration.toNanos();
                    long count = 0;
                    while (failure.get() == null) {
                        long begin = System.nanoTime();
                        if (begin - end >= 0) {
                            break;
                        }
                        boolean isMain = operation.run(index);
                        long micros = (System.nanoTime() - begin) / 1000;
                        (isMain ? main : extra).recordValue(Math.min(micros, main.getHighestTrackableValue()));
                        count++;
                    }
                    ops[index] = count;
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-" + t);
            workers.add(worker);
            worker.start();
        }
        try {
            start.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        window[0] = System.nanoTime();
        for (Thread worker : workers) {
            worker.join(duration.toMillis() + 60_000);
            if (worker.isAlive()) {
                failure.compareAndSet(null, new IllegalStateException(worker.getName() + " hung"));
                worker.interrupt();
            }
        }
        window[1] = System.nanoTime();
        Histogram main = Measurement.newHistogram();
        Histogram extra = Measurement.newHistogram();
        mains.forEach(main::add);
        extras.forEach(extra::add);
        long total = 0;
        for (long n : ops) {
            total += n;
        }
        return new Result(total, (window[1] - window[0]) / 1e9, main, extra, failure.get());
    }
}
