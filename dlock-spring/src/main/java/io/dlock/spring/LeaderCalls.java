package io.dlock.spring;

import io.dlock.LeaderTerm;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@link LeaderOnly} calls in progress on the calling thread, for a method that cannot take its term as a
 * parameter (Spring allows {@code @Scheduled} methods none).
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 1000)
 * @LeaderOnly("billing")
 * public void bill() {
 *     LeaderTerm term = LeaderCalls.term("billing").orElseThrow();
 *     ledger.append(term.requireValid(), nextBatch());
 * }
 * }</pre>
 *
 * <p>Thread-safe; never blocks.
 */
public final class LeaderCalls {

    private LeaderCalls() {
    }

    /**
     * The term of the calling thread's {@code @LeaderOnly} call in progress for election {@code election}.
     *
     * @param election the election's name as the annotation gives it (placeholders resolved)
     * @return the term, or empty when the thread is in no {@code @LeaderOnly} call of that election; the term may
     *         have ended since the call began: check {@link LeaderTerm#requireValid()} before each side effect
     * @throws NullPointerException when {@code election} is null
     */
    public static Optional<LeaderTerm> term(String election) {
        return Optional.ofNullable(LeaderOnlyInterceptor.termOf(Objects.requireNonNull(election, "election")));
    }
}
