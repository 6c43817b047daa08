package io.dlock.spring;

import io.dlock.LeaderTerm;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@link LeaderOnlyMethod#parse} accepts and refuses, with the messages, and where it puts the term. */
class LeaderOnlyMethodTest {

    static class Jobs {
        @LeaderOnly("jobs")
        public String settle(String batch, LeaderTerm term, @LeaderEpoch long epoch, @LeaderEpoch Long boxed) {
            return batch;
        }

        @LeaderOnly("  ")
        public void blank() {
        }

        @LeaderOnly("jobs")
        public void epochAsInt(@LeaderEpoch int epoch) {
        }

        @LeaderOnly("jobs")
        public CompletableFuture<String> async() {
            return null;
        }

        @LeaderOnly("${election}")
        public OptionalLong placeholder() {
            return OptionalLong.of(1);
        }

        @LeaderOnly("jobs")
        public Optional<String> optional() {
            return Optional.of("x");
        }
    }

    /** A term to hand around; only its identity matters here. */
    private static final class EndedTerm implements LeaderTerm {
        @Override
        public long epoch() {
            return 42;
        }

        @Override
        public java.time.Instant since() {
            return java.time.Instant.EPOCH;
        }

        @Override
        public boolean isValid() {
            return false;
        }

        @Override
        public java.time.Duration validFor() {
            return java.time.Duration.ZERO;
        }

        @Override
        public long requireValid() {
            throw new IllegalStateException("ended");
        }

        @Override
        public CompletableFuture<Cause> revocationAsync() {
            return CompletableFuture.completedFuture(Cause.CLOSED);
        }
    }

    private static LeaderOnlyMethod parse(String name) throws NoSuchMethodException {
        for (var method : Jobs.class.getMethods()) {
            if (method.getName().equals(name)) {
                return LeaderOnlyMethod.parse(method, method.getAnnotation(LeaderOnly.class),
                        value -> value.replace("${election}", "billing"));
            }
        }
        throw new NoSuchMethodException(name);
    }

    @Test
    void theTermAndItsEpochReplaceTheCallersArguments() throws Exception {
        LeaderOnlyMethod spec = parse("settle");
        assertThat(spec.election()).isEqualTo("jobs");
        LeaderTerm term = new EndedTerm();
        Object[] arguments = {"batch", null, 0L, null};
        spec.inject(arguments, term, 42);
        assertThat(arguments).containsExactly("batch", term, 42L, 42L);
        assertThat(spec.skipValue()).isNull();
    }

    @Test
    void placeholdersAreResolvedAndSkippedCallsReturnEmptyOptionals() throws Exception {
        assertThat(parse("placeholder").election()).isEqualTo("billing");
        assertThat(parse("placeholder").skipValue()).isEqualTo(OptionalLong.empty());
        assertThat(parse("optional").skipValue()).isEqualTo(Optional.empty());
    }

    @Test
    void refusesABlankNameAnEpochThatIsNotALongAndAnAsynchronousResult() {
        assertThatThrownBy(() -> parse("blank")).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("@LeaderOnly on Jobs.blank(): the election's name is blank");
        assertThatThrownBy(() -> parse("epochAsInt")).isInstanceOf(IllegalStateException.class)
                .hasMessage("@LeaderOnly on Jobs.epochAsInt(int): parameter 0 (int) is annotated @LeaderEpoch, "
                        + "which only a long or Long parameter may be");
        assertThatThrownBy(() -> parse("async")).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("@LeaderOnly on Jobs.async(): returns java.util.concurrent.CompletableFuture")
                .hasMessageContaining("Only synchronous methods are supported");
    }
}
