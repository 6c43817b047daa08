package io.dlock.redisprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Bounded polling, without Redis. */
class AwaitTest {

    private static final Duration SHORT = Duration.ofMillis(100);

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void returnsOnceTheConditionHolds() {
        AtomicInteger calls = new AtomicInteger();
        Duration took = Await.until(Duration.ofSeconds(5), () -> calls.incrementAndGet() >= 3, "three calls");
        assertThat(calls).hasValue(3);
        assertThat(took).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void failsNamingWhatWasAwaitedAndTheLastProblem() {
        assertThatThrownBy(() -> Await.untilNoProblem(SHORT, () -> "replica 6380 lags", "replicas in sync"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("replicas in sync: not within 100 ms")
                .hasMessageContaining("last problem: replica 6380 lags");
        assertThatThrownBy(() -> Await.until(SHORT, () -> false, () -> "computed " + 42))
                .hasMessageStartingWith("computed 42: not within 100 ms");
    }

    @Test
    void aThrowingCheckCountsAsNotYetAndBecomesTheCause() {
        AtomicInteger calls = new AtomicInteger();
        Await.until(Duration.ofSeconds(5), () -> {
            if (calls.incrementAndGet() < 3) {
                throw new IOException("not listening yet");
            }
            return true;
        }, "listening");
        assertThat(calls).hasValue(3);

        assertThatThrownBy(() -> Await.until(SHORT, () -> {
            throw new IOException("connection refused");
        }, "listening"))
                .hasMessageContaining("last problem: java.io.IOException: connection refused")
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void anAssertionErrorInAConditionFailsAtOnceAsItIs() {
        // a condition that asserts "this must never happen" must fail the test, not count as "not yet"
        AssertionError never = new AssertionError("unlock of a lost hold succeeded");
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> Await.until(Duration.ofSeconds(5), () -> {
            calls.incrementAndGet();
            throw never;
        }, "unlock answers"))
                .isSameAs(never);
        assertThat(calls).as("the condition ran once").hasValue(1);

        calls.set(0);
        assertThatThrownBy(() -> Await.untilNoProblem(Duration.ofSeconds(5), () -> {
            calls.incrementAndGet();
            assertThat(1).as("one").isEqualTo(2);
            return null;
        }, "one is two"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("[one]");
        assertThat(calls).as("the check ran once").hasValue(1);

        calls.set(0);
        assertThatThrownBy(() -> Await.during(Duration.ofSeconds(5), () -> {
            calls.incrementAndGet();
            throw never;
        }, "keeps holding"))
                .isSameAs(never);
        assertThat(calls).hasValue(1);
    }

    @Test
    void untilAssertedRetriesFailedAssertions() {
        AtomicInteger calls = new AtomicInteger();
        Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(calls.incrementAndGet()).isEqualTo(3));
        assertThat(calls).hasValue(3);

        assertThatThrownBy(() -> Await.untilAsserted(SHORT, () -> assertThat(1).as("one").isEqualTo(2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("[one]")
                .hasCauseInstanceOf(AssertionError.class);
    }

    @Test
    void duringChecksThatAConditionKeepsHolding() {
        AtomicInteger calls = new AtomicInteger();
        long start = System.nanoTime();
        Await.during(SHORT, () -> calls.incrementAndGet() > 0, "positive");
        assertThat(Await.millisSince(start)).isGreaterThanOrEqualTo(SHORT.toMillis());
        assertThat(calls.get()).isGreaterThan(1);

        AtomicInteger countdown = new AtomicInteger(3);
        assertThatThrownBy(() -> Await.during(Duration.ofSeconds(5), () -> countdown.decrementAndGet() > 0,
                "still counting"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("still counting: stopped holding after");
    }

    @Test
    void anInterruptEndsTheWaitAndKeepsTheFlag() {
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> Await.until(Duration.ofSeconds(5), () -> false, "never"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("never: interrupted")
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }
}
