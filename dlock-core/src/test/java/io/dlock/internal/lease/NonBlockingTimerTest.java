package io.dlock.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NonBlockingTimerTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private final NonBlockingTimer timer = new NonBlockingTimer(task -> new Thread(task, "timer-under-test"), System::nanoTime);

    @AfterEach
    void close() {
        timer.close();
    }

    @Test
    void runsTasksInDeadlineOrderThenInScheduleOrder() throws InterruptedException {
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(4);
        timer.schedule(record(ran, "late", done), 80 * MS);
        timer.schedule(record(ran, "early-1", done), 20 * MS);
        timer.schedule(record(ran, "early-2", done), 20 * MS);
        timer.schedule(record(ran, "now", done), -5);
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("now", "early-1", "early-2", "late");
    }

    @Test
    void neverRunsBeforeTheDeadline() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        long[] ranAfter = new long[1];
        long start = System.nanoTime();
        timer.schedule(() -> {
            ranAfter[0] = System.nanoTime() - start;
            done.countDown();
        }, 50 * MS);
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(ranAfter[0]).isGreaterThanOrEqualTo(50 * MS);
    }

    @Test
    void anEarlierTaskWakesATimerSleepingTowardsALaterOne() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        timer.schedule(() -> { }, TimeUnit.SECONDS.toNanos(30));
        Thread.sleep(50); // the timer thread now sleeps towards 30 s
        long start = System.nanoTime();
        timer.schedule(done::countDown, 10 * MS);
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
    }

    @Test
    void aCancelledTaskNeverRunsAndCancelIsIdempotent() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        Runnable cancel = timer.schedule(runs::incrementAndGet, 30 * MS);
        cancel.run();
        cancel.run();
        CountDownLatch after = new CountDownLatch(1);
        timer.schedule(after::countDown, 60 * MS);
        assertThat(after.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(runs).hasValue(0);
    }

    @Test
    void cancelledTasksAreDroppedLongBeforeTheirDeadline() throws InterruptedException {
        for (int i = 0; i < 10 * NonBlockingTimer.PURGE_EVERY; i++) {
            timer.schedule(() -> { }, TimeUnit.MINUTES.toNanos(10)).run();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (timer.retainedForTest() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(timer.retainedForTest()).isZero();
    }

    @Test
    void manyThreadsSchedulingAtOnceLoseNoTask() throws InterruptedException {
        int threads = 8;
        int perThread = 2_000;
        CountDownLatch done = new CountDownLatch(threads * perThread);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    timer.schedule(done::countDown, (i % 7) * MS);
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aFailingTaskDoesNotStopTheTimer() throws InterruptedException {
        timer.schedule(() -> {
            throw new IllegalStateException("boom");
        }, 0);
        CountDownLatch done = new CountDownLatch(1);
        timer.schedule(done::countDown, 5 * MS);
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void closeDropsPendingTasksAndRefusesNewOnes() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        timer.schedule(runs::incrementAndGet, 50 * MS);
        timer.close();
        assertThat(timer.awaitStoppedForTest(5_000)).as("the timer thread ends on close").isTrue();
        assertThat(runs).as("no thread is left to run it").hasValue(0);
        assertThatThrownBy(() -> timer.schedule(() -> { }, 0)).isInstanceOf(RejectedExecutionException.class);
    }

    private static Runnable record(List<String> ran, String name, CountDownLatch done) {
        return () -> {
            ran.add(name);
            done.countDown();
        };
    }
}
