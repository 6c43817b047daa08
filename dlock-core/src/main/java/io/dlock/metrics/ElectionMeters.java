package io.dlock.metrics;

import io.dlock.LeaderTerm;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The meters of one client's leader elections in one {@link MeterRegistry} (names and tags:
 * {@code io.dlock.metrics.LockMetrics}). Every meter carries the election's name in the tag {@code name} (an
 * application has a handful of elections, each named in its configuration); an election's meters are registered when
 * this client first reports an event of that name, the regression counter among them, so that it shows 0 from the
 * first term on. Thread-safe.
 */
final class ElectionMeters {
    private static final LeaderTerm.Cause[] CAUSES = LeaderTerm.Cause.values();

    /** The meters of one election name. */
    private record Named(Counter elections, Counter[] revocations, Counter renewalsOk, Counter renewalsFailed,
                         Timer term, Counter regressions) {
    }

    private final MeterRegistry registry;
    private final String prefix;
    private final Consumer<Meter> keep;
    private final Function<String, AtomicInteger> leading;
    private final Map<String, Named> named = new ConcurrentHashMap<>();

    /**
     * @param leading the number of this client's elections of a name that lead now, read by the {@code leader}
     *                gauge (the same object for a name, whenever asked)
     * @param keep    told of every meter registered (for its removal)
     */
    ElectionMeters(MeterRegistry registry, String prefix, Function<String, AtomicInteger> leading,
                   Consumer<Meter> keep) {
        this.registry = registry;
        this.prefix = prefix;
        this.keep = keep;
        this.leading = leading;
    }

    /** @return the value of the {@code cause} tag */
    static String causeTag(LeaderTerm.Cause cause) {
        return cause.name().toLowerCase(Locale.ROOT);
    }

    /** Registers the meters of {@code election} unless done already (the leader gauge included). */
    void known(String election) {
        meters(election);
    }

    void elected(String election, boolean regressed) {
        Named meters = meters(election);
        meters.elections().increment();
        if (regressed) {
            meters.regressions().increment();
        }
    }

    void revoked(String election, LeaderTerm.Cause cause, long termNanos) {
        Named meters = meters(election);
        meters.term().record(termNanos, TimeUnit.NANOSECONDS);
        meters.revocations()[cause.ordinal()].increment();
    }

    void renewed(String election, boolean ok) {
        Named meters = meters(election);
        (ok ? meters.renewalsOk() : meters.renewalsFailed()).increment();
    }

    void clear() {
        named.clear();
    }

    private Named meters(String election) {
        return named.computeIfAbsent(election, this::register);
    }

    private Named register(String election) {
        kept(Gauge.builder(prefix + ".leader", leading.apply(election), AtomicInteger::get)
                .description("Elections of this client of this name that lead now (1 from a win to the revocation)")
                .tags("name", election).strongReference(true).register(registry));
        Counter[] revocations = new Counter[CAUSES.length];
        for (LeaderTerm.Cause cause : CAUSES) {
            revocations[cause.ordinal()] = kept(Counter.builder(prefix + ".leader.revocations")
                    .description("Terms of this client's elections revoked, by cause")
                    .tags("name", election, "cause", causeTag(cause)).register(registry));
        }
        return new Named(
                kept(Counter.builder(prefix + ".leader.elections")
                        .description("Terms won by this client's elections").tags("name", election)
                        .register(registry)),
                revocations,
                renewalCounter(election, "ok"),
                renewalCounter(election, "failed"),
                kept(Timer.builder(prefix + ".leader.term")
                        .description("Terms, from the sending of the winning attempt to the revocation")
                        .tags("name", election).register(registry)),
                kept(Counter.builder(prefix + ".leader.epoch.regressions")
                        .description("Terms won with an epoch not above the last this client saw for the name: "
                                + "must stay 0")
                        .tags("name", election).register(registry)));
    }

    private Counter renewalCounter(String election, String result) {
        return kept(Counter.builder(prefix + ".leader.renewals")
                .description("Renewals of leaders' terms, by result").tags("name", election, "result", result)
                .register(registry));
    }

    private <M extends Meter> M kept(M meter) {
        keep.accept(meter);
        return meter;
    }
}
