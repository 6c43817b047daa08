package io.dlock.internal.acquire;

import io.dlock.LockException;
import io.dlock.internal.ManualScheduler;
import io.dlock.internal.wakeup.PubSubPort;
import io.dlock.internal.wakeup.WakeupHub;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** How a waiting acquisition treats Redis being unavailable: without a wait limit it retries, else it fails. */
class AcquireLoopOutageTest {
    private final ManualScheduler time = new ManualScheduler();
    private final WakeupHub hub = new WakeupHub(new PubSubPort() {
        @Override
        public CompletableFuture<Void> subscribe(String channel) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> unsubscribe(String channel) {
            return CompletableFuture.completedFuture(null);
        }
    }, time);
    private final Outage outage = new Outage(time, () -> false);
    /** Replies of the next attempts: an exception, a TTL, or {@link #ACQUIRED}. */
    private final Deque<Object> replies = new ArrayDeque<>();
    private final AtomicInteger attempts = new AtomicInteger();
    /** Cleanups the loop recorded as finishing after its result. */
    private final java.util.List<CompletableFuture<?>> nextAfterCleanups = new java.util.ArrayList<>();
    /** The reply of the give-up script. */
    private CompletableFuture<Void> giveUpReply = CompletableFuture.completedFuture(null);

    private AcquireLoop loop(long deadlineNanos) {
        return new AcquireLoop(new AcquireSteps("lock", "orders", () -> {
            attempts.incrementAndGet();
            Object reply = replies.poll();
            return reply instanceof Throwable t ? CompletableFuture.failedFuture(t)
                    : CompletableFuture.completedFuture(reply == ACQUIRED ? null : (Long) reply);
        }, () -> CompletableFuture.completedFuture(null), () -> giveUpReply, List.of("channel"),
                WakeMode.ONE, null, nextAfterCleanups::add), new LoopWaiting(hub, time::nanoTime, 30_000, outage),
                deadlineNanos, false);
    }

    @Test
    void withoutAWaitLimitItRetriesWithBackOffUntilRedisAnswers() {
        for (int i = 0; i < 4; i++) {
            replies.add(new RedisConnectionException("connection refused"));
        }
        replies.add(ACQUIRED);
        AcquireLoop loop = loop(AcquireLoop.NO_DEADLINE);
        loop.start();
        assertThat(attempts).hasValue(1);
        assertThat(loop.result()).isNotDone();

        time.advanceMillis(Outage.FIRST_BACKOFF_MS - 1);
        assertThat(attempts).as("no retry before the first pause ends").hasValue(1);
        time.advanceMillis(1);
        assertThat(attempts).hasValue(2);
        time.advanceMillis(2 * Outage.FIRST_BACKOFF_MS);
        assertThat(attempts).as("the pause doubles").hasValue(3);
        time.advanceMillis(4 * Outage.FIRST_BACKOFF_MS);
        assertThat(attempts).hasValue(4);
        time.advanceMillis(8 * Outage.FIRST_BACKOFF_MS);
        assertThat(attempts).hasValue(5);
        assertThat(loop.result()).isCompletedWithValue(true);
        assertThat(loop.finished()).isDone();
    }

    @Test
    void thePauseNeverGrowsPastItsCap() {
        assertThat(Outage.nextBackoff(0)).isEqualTo(Outage.FIRST_BACKOFF_MS);
        long pause = 0;
        for (int i = 0; i < 20; i++) {
            pause = Outage.nextBackoff(pause);
        }
        assertThat(pause).isEqualTo(Outage.MAX_BACKOFF_MS);
    }

    @Test
    void abandoningItDuringAPauseEndsItAtOnce() {
        replies.add(new RedisConnectionException("connection refused"));
        AcquireLoop loop = loop(AcquireLoop.NO_DEADLINE);
        loop.start();
        assertThat(loop.abandon()).isDone();
        assertThat(loop.result()).isCancelled();
        time.advanceMillis(10_000);
        assertThat(attempts).as("no attempt after it was abandoned").hasValue(1);
    }

    @Test
    void withAWaitLimitTheFailureIsReportedAtOnce() {
        replies.add(new RedisConnectionException("connection refused"));
        AcquireLoop loop = loop(time.nanoTime() + 60_000_000_000L);
        loop.start();
        assertThat(loop.result()).isCompletedExceptionally();
        assertThat(loop.result().handle((ok, e) -> e)).succeedsWithin(java.time.Duration.ZERO)
                .isInstanceOf(LockException.class);
    }

    /**
     * Redis unavailable under a wait limit: the caller hears of it as soon as the attempt fails, not a command timeout
     * later when the give-up (sent to the same unavailable Redis) answers; the give-up is recorded first, so that the
     * owner's next acquisition waits for it.
     */
    @Test
    void withAWaitLimitTheCallerDoesNotWaitForTheGiveUpDuringAnOutage() {
        replies.add(new io.lettuce.core.RedisCommandTimeoutException("Command timed out after 500 millisecond(s)"));
        giveUpReply = new CompletableFuture<>();
        AcquireLoop loop = loop(time.nanoTime() + 60_000_000_000L);
        loop.start();
        assertThat(loop.result()).isCompletedExceptionally();
        assertThat(nextAfterCleanups).singleElement().satisfies(cleanup -> assertThat(cleanup).isNotDone());
        assertThat(loop.finished()).isNotDone();

        giveUpReply.complete(null);
        assertThat(nextAfterCleanups.get(0)).isDone();
        assertThat(loop.finished()).isDone();
    }

    @Test
    void errorsThatDoNotPassByThemselvesEndEvenAWaitWithoutLimit() {
        replies.add(new RedisCommandExecutionException("WRONGTYPE Operation against a key holding the wrong kind"));
        AcquireLoop loop = loop(AcquireLoop.NO_DEADLINE);
        loop.start();
        assertThat(loop.result()).isCompletedExceptionally();
        assertThat(attempts).hasValue(1);
    }

    /** The reply "acquired" (the attempts' null). */
    private static final Object ACQUIRED = new Object();
}
