package io.dlock.internal.transport;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** When the deadline rule counts Redis as unavailable rather than slow. */
class AnswerWatchTest {
    private static final long TIMEOUT_NANOS = Duration.ofSeconds(3).toNanos();

    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicBoolean connected = new AtomicBoolean(true);
    private final AnswerWatch watch = new AnswerWatch(now::get, Duration.ofNanos(TIMEOUT_NANOS), connected::get);

    @Test
    void anIdleConnectionIsNotSilent() {
        now.addAndGet(10 * TIMEOUT_NANOS);
        assertThat(watch.unavailable()).isFalse();
    }

    @Test
    void aCommandUnansweredForACommandTimeoutMakesItUnavailableUntilAnAnswer() {
        watch.sending();
        now.addAndGet(TIMEOUT_NANOS - 1);
        assertThat(watch.unavailable()).as("slow, not yet silent for a command timeout").isFalse();
        watch.sending(); // a later command does not restart the silence
        now.addAndGet(1);
        assertThat(watch.unavailable()).isTrue();
        watch.ended(new RedisCommandTimeoutException("timed out"));
        assertThat(watch.unavailable()).as("a timeout is no answer").isTrue();
        watch.ended(new RedisCommandExecutionException("NOSCRIPT No matching script"));
        assertThat(watch.unavailable()).as("an error reply is an answer").isFalse();
    }

    @Test
    void aConnectionDownIsUnavailableAtOnce() {
        connected.set(false);
        assertThat(watch.unavailable()).isTrue();
        connected.set(true);
        assertThat(watch.unavailable()).isFalse();
    }

    @Test
    void theSilenceStartsWithTheFirstCommandAfterTheLastAnswer() {
        watch.sending();
        now.addAndGet(TIMEOUT_NANOS);
        watch.ended(null);
        watch.sending();
        now.addAndGet(TIMEOUT_NANOS / 2);
        assertThat(watch.unavailable()).isFalse();
    }
}
