package io.dlock.cli;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The count-down latch: awaiters on two clients wait while a worker client counts down three times, one count-down
 * at a time. Before each count-down the worker adds 1 to a Redis counter, and each awaiter reads that counter as it
 * passes: an awaiter let through early would read less than three. Between count-downs the demo also watches that
 * nobody has passed yet.
 */
final class LatchScenario extends DemoScenario {
    private static final int COUNT = 3;
    private static final int CLIENTS = 2;
    private static final int AWAITERS_PER_CLIENT = 2;
    /** How long the demo watches the awaiters before each count-down. */
    private static final Duration WATCH = Duration.ofMillis(200);

    LatchScenario() {
        super("Count-down latch: awaiters pass only after every count-down", "latch");
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws Exception {
        String counted = name + ":counted";
        LockClient worker = context.newClient(null);
        DistributedCountDownLatch latch = worker.getCountDownLatch(name);
        context.check("latch '" + name + "' set to " + COUNT, latch.trySetCount(COUNT, Duration.ofMinutes(1)));
        try (StatefulRedisConnection<String, String> connection = context.connect()) {
            RedisCommands<String, String> cmd = connection.sync();
            List<CompletableFuture<Long>> awaiters = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                LockClient client = context.newClient(null);
                for (int a = 0; a < AWAITERS_PER_CLIENT; a++) {
                    awaiters.add(startAwaiter(client.getCountDownLatch(name), cmd, counted));
                }
            }
            context.say(awaiters.size() + " awaiters on " + CLIENTS + " clients call await(); before each count-down "
                    + "the worker adds 1 to '" + counted + "'");
            int passedEarly = 0;
            long lastCountDown = System.nanoTime();
            for (int i = 1; i <= COUNT; i++) {
                ScenarioContext.holdsFor(() -> awaiters.stream().noneMatch(CompletableFuture::isDone), WATCH);
                passedEarly = (int) awaiters.stream().filter(LatchScenario::passed).count();
                if (awaiters.stream().anyMatch(CompletableFuture::isDone)) {
                    break; // passed early, or failed: the checks below tell which
                }
                cmd.incr(counted);
                latch.countDown();
                lastCountDown = System.nanoTime();
                context.say("count-down " + i + " -> count " + worker.inspectCountDownLatch(name).count()
                        + (i < COUNT ? ", awaiters passed: 0 of " + awaiters.size() + " so far" : ""));
            }
            context.check("no awaiter passed before the last count-down (passed early: " + passedEarly + " of "
                    + awaiters.size() + ", watched " + DurationText.formatMillis(WATCH.toMillis())
                    + " before each count-down)", passedEarly == 0);
            long deadline = lastCountDown + TimeUnit.SECONDS.toNanos(5);
            List<String> seen = new ArrayList<>();
            boolean allOpened = true;
            boolean allSawEvery = true;
            for (CompletableFuture<Long> awaiter : awaiters) {
                long value;
                try {
                    value = awaiter.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException | ExecutionException e) {
                    value = -1;
                }
                allOpened &= value >= 0;
                allSawEvery &= value == COUNT;
                seen.add(value < 0 ? "none" : Long.toString(value));
            }
            long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastCountDown);
            context.check("all " + awaiters.size() + " awaiters passed after the last count-down (within "
                    + DurationText.formatMillis(afterMs) + ")", allOpened);
            context.check("each saw " + COUNT + " count-downs done as it passed (saw: " + String.join(", ", seen)
                    + ")", allSawEvery);
            cmd.del(counted);
        }
        latch.delete();
        return true;
    }

    /** @return whether the awaiter passed an open latch */
    private static boolean passed(CompletableFuture<Long> awaiter) {
        return awaiter.isDone() && !awaiter.isCompletedExceptionally() && awaiter.getNow(-1L) >= 0;
    }

    /**
     * One awaiter on a thread of its own: {@code await} with a 10 s bound, then the counter as it reads it.
     *
     * @return completes with the counter's value when the latch opened, or -1 when the wait ran out
     */
    private static CompletableFuture<Long> startAwaiter(DistributedCountDownLatch latch,
                                                        RedisCommands<String, String> cmd, String counted) {
        CompletableFuture<Long> passed = new CompletableFuture<>();
        Thread awaiter = new Thread(() -> {
            try {
                if (latch.await(Duration.ofSeconds(10))) {
                    String value = cmd.get(counted);
                    passed.complete(value == null ? 0 : Long.parseLong(value));
                } else {
                    passed.complete(-1L);
                }
            } catch (InterruptedException e) {
                passed.completeExceptionally(e);
            } catch (RuntimeException e) {
                passed.completeExceptionally(e);
            }
        }, "demo-awaiter");
        awaiter.setDaemon(true);
        awaiter.start();
        return passed;
    }
}
