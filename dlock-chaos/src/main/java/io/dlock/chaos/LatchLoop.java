package io.dlock.chaos;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.SETUP;
import static io.dlock.chaos.Event.Type.SETUP_ERROR;
import static io.dlock.chaos.Event.Type.SETUP_START;

/**
 * One thread of a {@link Worker} JVM on the {@link Workload#LATCH} workload, an owner of its own: latch rounds, in
 * step with every other latch loop of the run because every process reads the same monotonic clock. Round {@code r}
 * is the {@value Workload#LATCH_ROUND_MS} ms from {@code r × LATCH_ROUND_MS} on {@link System#nanoTime()}, and its
 * latch is {@code chaos:latch:<r>}:
 * <ol>
 *   <li>in its first {@value Workload#LATCH_SETUP_MS} ms every loop that is there sets the count
 *       ({@code trySetCount(}{@value Workload#LATCH_COUNT}{@code , TTL }{@value Workload#LATCH_TTL_MS}{@code  ms)}:
 *       the first one sets it, the others find it set); nothing counts down or awaits yet, so the latch cannot open
 *       and be set a second time;</li>
 *   <li>then each loop, by a seeded draw, either counts down once (one in three, after a short random pause) or
 *       awaits the latch with a timed wait that ends before the round does. With 3 workers × 3 threads about three
 *       loops count down per round: the latch opens in about half of the rounds, and its awaits answer
 *       {@code true}; in the others they answer {@code false}.</li>
 * </ol>
 * Events (file {@code w<n>-latch-t<i>.events}): SETUP_START {@code set-count name=… count=3}, then SETUP or
 * SETUP_ERROR; ACQUIRE_START {@code countdown name=…} then ACQUIRED or ACQUIRE_ERROR; ACQUIRE_START
 * {@code await name=… waitMs=…} then ACQUIRED (true), ACQUIRE_TIMEOUT (false) or ACQUIRE_ERROR. The TTL outlives
 * every round by far (no awaiter sees a latch expire), and lets a latch that never opened go by itself after a run.
 */
final class LatchLoop implements Runnable {
    private static final long ROUND_NS = Workload.LATCH_ROUND_MS * 1_000_000L;
    private static final long SETUP_NS = Workload.LATCH_SETUP_MS * 1_000_000L;
    /** An await ends this long before its round does, a count-down is sent at least this long before. */
    private static final long ROUND_MARGIN_NS = 250_000_000L;

    private final String source;
    private final LockClient client;
    private final EventLog log;
    private final Path stopFile;
    private final Random random;

    LatchLoop(WorkerArgs args, int thread, LockClient client) {
        this.source = Workload.LATCH.source(args.id(), thread);
        this.client = client;
        this.log = EventLog.create(args.outDir().resolve(args.id() + "-" + Workload.LATCH.label() + "-t" + thread
                + ".events"), source);
        this.stopFile = args.stopFile();
        this.random = new Random((args.seed() * 7 + Workload.LATCH.ordinal()) * 31 + thread);
    }

    /** @return its event source, {@code w<n>/latch/t<i>} */
    String source() {
        return source;
    }

    @Override
    public void run() {
        LoopFrame.run(log, client.getId() + ":" + Thread.currentThread().getId(), stopFile, this::round, () -> { });
    }

    private void round() throws InterruptedException {
        long round = Math.floorDiv(System.nanoTime(), ROUND_NS);
        long start = round * ROUND_NS;
        String name = Workload.latchName(round);
        DistributedCountDownLatch latch = client.getCountDownLatch(name);
        if (System.nanoTime() - (start + SETUP_NS - 50_000_000L) < 0) {
            setUp(latch, name);
        }
        sleepUntil(start + SETUP_NS);
        long end = start + ROUND_NS - ROUND_MARGIN_NS;
        if (!Files.exists(stopFile) && System.nanoTime() - (end - 100_000_000L) < 0) {
            if (random.nextInt(3) == 0) {
                sleepUntil(Math.min(end - 50_000_000L, System.nanoTime() + random.nextInt(1000) * 1_000_000L));
                countDown(latch, name);
            } else {
                await(latch, name, Math.max(1, (end - System.nanoTime()) / 1_000_000L));
            }
        }
        sleepUntil(start + ROUND_NS);
    }

    private void setUp(DistributedCountDownLatch latch, String name) {
        log.record(SETUP_START, "set-count name=" + name + " count=" + Workload.LATCH_COUNT);
        try {
            boolean set = latch.trySetCount(Workload.LATCH_COUNT, Duration.ofMillis(Workload.LATCH_TTL_MS));
            log.record(SETUP, Boolean.toString(set));
        } catch (RuntimeException e) {
            log.record(SETUP_ERROR, Worker.describe(e));
        }
    }

    private void countDown(DistributedCountDownLatch latch, String name) {
        log.record(ACQUIRE_START, "countdown name=" + name);
        try {
            latch.countDown();
            log.record(ACQUIRED, "countdown name=" + name);
        } catch (RuntimeException e) {
            log.record(ACQUIRE_ERROR, Worker.describe(e));
        }
    }

    private void await(DistributedCountDownLatch latch, String name, long waitMs) throws InterruptedException {
        log.record(ACQUIRE_START, "await name=" + name + " waitMs=" + waitMs);
        try {
            boolean open = latch.await(waitMs, TimeUnit.MILLISECONDS);
            log.record(open ? ACQUIRED : ACQUIRE_TIMEOUT, "await name=" + name);
        } catch (RuntimeException e) {
            log.record(ACQUIRE_ERROR, Worker.describe(e));
        }
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
