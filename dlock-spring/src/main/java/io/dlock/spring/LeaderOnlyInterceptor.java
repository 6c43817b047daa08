package io.dlock.spring;

import io.dlock.LeaderTerm;
import io.dlock.LockLostException;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs a {@link LeaderOnly} call: inside the gate of the election's current term ({@link TermGate}, which interrupts
 * it when the term ends), after {@link LeaderTerm#requireValid()}, with the term in its arguments and in
 * {@link LeaderCalls}; or skips it when this candidate leads no valid term. No round trip. Thread-safe.
 */
final class LeaderOnlyInterceptor {
    private static final Logger log = LoggerFactory.getLogger(LeaderOnly.class);
    /** Per thread: the term of each election whose call is in progress. */
    private static final ThreadLocal<Map<String, LeaderTerm>> TERMS = new ThreadLocal<>();

    private final Supplier<LeaderElections> elections;

    /** @param elections the context's registry, asked on each call */
    LeaderOnlyInterceptor(Supplier<LeaderElections> elections) {
        this.elections = elections;
    }

    static LeaderTerm termOf(String election) {
        Map<String, LeaderTerm> terms = TERMS.get();
        return terms == null ? null : terms.get(election);
    }

    /** @param body the rest of the call (limits, locks, the method) */
    Object invoke(MethodInvocation invocation, LeaderOnlyMethod spec, LimitedMethodInterceptor.Body body)
            throws Throwable {
        TermGate.Call call = elections.get().declare(spec.election()).enter();
        if (call == null) {
            log.debug("{} skipped: this instance does not lead election '{}'", spec.description(), spec.election());
            return spec.skipValue();
        }
        try {
            LeaderTerm term = call.term();
            long epoch;
            try {
                epoch = term.requireValid();
            } catch (LockLostException e) {
                log.debug("{} skipped: {}", spec.description(), e.getMessage());
                return spec.skipValue();
            }
            spec.inject(invocation.getArguments(), term, epoch);
            Map<String, LeaderTerm> terms = TERMS.get();
            if (terms == null) {
                terms = new HashMap<>();
                TERMS.set(terms);
            }
            LeaderTerm outer = terms.put(spec.election(), term);
            try {
                return body.run(invocation);
            } finally {
                if (outer != null) {
                    terms.put(spec.election(), outer);
                } else {
                    terms.remove(spec.election());
                    if (terms.isEmpty()) {
                        TERMS.remove();
                    }
                }
            }
        } finally {
            call.leave();
        }
    }
}
