package io.dlock.metrics;

import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockClient;
import io.dlock.LockEventListener;
import io.dlock.LockKind;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.observation.ObservationRegistry;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * Micrometer metrics of one {@link LockClient}: how long acquisitions take and how they end, how long locks are held,
 * leases lost, renewals, hand-offs inside the client and Redis attempts per acquisition; and for its semaphores and
 * count-down latches, permit acquisitions and waits, permits held and lost, latch awaits and count-downs.
 *
 * <pre>{@code
 * LockMetrics metrics = LockMetrics.of(client);
 * metrics.bindTo(meterRegistry);          // or let Spring Boot bind it: it is a MeterBinder
 * ...
 * metrics.close();                        // before or after client.close()
 * }</pre>
 *
 * <p>Micrometer ({@code io.micrometer:micrometer-core}) is an optional dependency of dlock: add it to use this class.
 * A client without metrics never loads Micrometer and pays nothing; with metrics bound, each acquisition costs one
 * small object and a few timer and counter updates. The metrics are a {@link LockEventListener} of the client
 * ({@link LockClient#addEventListener}): they use nothing that other code could not.
 *
 * <p>A client may have several {@code LockMetrics} (with other settings, for other registries), and each may be bound
 * to several registries; but one registry takes the meters of one {@code LockMetrics} per {@link Builder#prefix
 * prefix}: two would add up their counts (two clients metered into one registry need two prefixes).
 *
 * <h2>Meters</h2>
 * Names start with the {@link Builder#prefix prefix} ({@code dlock} by default). Every meter has the tag {@code kind},
 * the {@link LockKind#tagValue()} of the lock's kind: {@code plain}, {@code fair}, {@code read}, {@code write} (the
 * two sides of a read-write lock) or {@code fenced}.
 * Time is recorded in nanoseconds and published in the registry's base unit (seconds for most).
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>more tags</th><th>meaning</th></tr>
 *   <tr><td>{@code dlock.acquire}</td><td>timer</td><td>{@code outcome}: {@code acquired}, {@code timed_out},
 *       {@code interrupted}, {@code failed}</td><td>each acquisition ({@code lock}, {@code tryLock},
 *       {@code lockInterruptibly}, their async twins), from the call to its result. {@code timed_out}: not acquired
 *       within its wait (a {@code tryLock()} that found the lock held included); {@code interrupted}: the caller
 *       stopped waiting (interrupt, or its future cancelled); {@code failed}: Redis failed, the client closed, or the
 *       call was refused (a read-to-write upgrade)</td></tr>
 *   <tr><td>{@code dlock.acquire.attempts}</td><td>distribution summary (unit {@code attempts})</td><td></td>
 *       <td>Redis attempts made by each acquisition, whatever its outcome: 1 when uncontended, more when it had to
 *       wait, 0 when another owner of this client handed the lock over without one</td></tr>
 *   <tr><td>{@code dlock.hold}</td><td>timer</td><td></td><td>each hold, from its acquisition (re-entries of the same
 *       owner count as one hold) to the release of the owner's last acquisition; holds that end otherwise (lost,
 *       force-unlocked) are not recorded here</td></tr>
 *   <tr><td>{@code dlock.lease.lost}</td><td>counter</td><td>{@code reason}: {@code expired}, {@code removed},
 *       {@code renewal_failed}</td><td>holds lost before their release, as reported to
 *       {@link LeaseLostListener}s ({@link LeaseLostEvent.Reason})</td></tr>
 *   <tr><td>{@code dlock.renewals}</td><td>counter</td><td>{@code result}: {@code ok}, {@code failed}</td>
 *       <td>watchdog renewals, one per hold and renewal call: {@code ok} when Redis extended the lease,
 *       {@code failed} when the call failed (it is retried). A hold a renewal found gone counts in
 *       {@code dlock.lease.lost} instead</td></tr>
 *   <tr><td>{@code dlock.renewal.calls}</td><td>counter</td><td>{@code result} (no {@code kind})</td>
 *       <td>renewal script calls; one renews a batch of up to 1,000 holds</td></tr>
 *   <tr><td>{@code dlock.handoffs}</td><td>counter</td><td></td><td>locks handed by a releasing owner straight to a
 *       waiting owner of this client (one script call instead of a release and a new acquisition)</td></tr>
 *   <tr><td>{@code dlock.holds}</td><td>gauge (unit {@code holds})</td><td>(no {@code name})</td><td>holds of this
 *       client right now</td></tr>
 *   <tr><td>{@code dlock.waiters}</td><td>gauge (unit {@code acquisitions})</td><td>(no {@code name})</td>
 *       <td>acquisitions of this client in progress right now, attempting or waiting</td></tr>
 * </table>
 * Only holds and acquisitions that begin after the {@code LockMetrics} was built are counted.
 *
 * <p><b>Semaphores and count-down latches.</b> These meters carry no {@code kind} and no {@code name} tag (whatever
 * {@link Builder#lockNameTags} says):
 * <table>
 *   <caption>Meters of semaphores and latches</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>meaning</th></tr>
 *   <tr><td>{@code dlock.permit.acquire}</td><td>timer</td><td>{@code semaphore}: {@code plain}
 *       ({@link io.dlock.DistributedSemaphore}), {@code leased} ({@link io.dlock.LeasedSemaphore}); {@code outcome}
 *       as for {@code dlock.acquire}</td><td>each semaphore acquisition ({@code acquire}, {@code tryAcquire}, sync or
 *       async), from the call to its result: the permit wait time. {@code timed_out}: no permit within the wait</td></tr>
 *   <tr><td>{@code dlock.permits.held}</td><td>gauge (unit {@code permits})</td><td></td><td>leased permits this
 *       client holds right now (granted since the {@code LockMetrics} was built, not yet released or lost); plain
 *       permits have no holder and are not counted</td></tr>
 *   <tr><td>{@code dlock.permit.lost}</td><td>counter</td><td>{@code reason}, as {@code dlock.lease.lost}</td>
 *       <td>leased permits lost before their release, as reported to {@link LeaseLostListener}s</td></tr>
 *   <tr><td>{@code dlock.latch.await}</td><td>timer</td><td>{@code outcome}: {@code opened}, {@code timed_out},
 *       {@code interrupted}, {@code failed}</td><td>each {@code await} of a
 *       {@link io.dlock.DistributedCountDownLatch}, from the call to its result</td></tr>
 *   <tr><td>{@code dlock.latch.countdowns}</td><td>counter</td><td></td><td>{@code countDown} calls answered by
 *       Redis</td></tr>
 * </table>
 *
 * <p><b>Leader elections.</b> These meters carry no {@code kind}; each carries {@code name}, the election's name
 * (whatever {@link Builder#lockNameTags} says: an application has a handful of elections). An election's meters appear
 * with the first event of its name this client reports (in a registry bound later: at its next event), and count
 * only the terms won after the {@code LockMetrics} was built:
 * <table>
 *   <caption>Meters of leader elections</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>meaning</th></tr>
 *   <tr><td>{@code dlock.leader}</td><td>gauge</td><td>{@code name}</td><td>1 while an election of this client
 *       of that name holds a term (from the win to its revocation), else 0</td></tr>
 *   <tr><td>{@code dlock.leader.elections}</td><td>counter</td><td>{@code name}</td><td>terms won</td></tr>
 *   <tr><td>{@code dlock.leader.revocations}</td><td>counter</td><td>{@code name}; {@code cause}:
 *       {@code resigned}, {@code closed}, {@code connection_lost}, {@code lease_lost}, {@code paused},
 *       {@code task_ended}, {@code task_failed} ({@link io.dlock.LeaderTerm.Cause})</td><td>terms revoked</td></tr>
 *   <tr><td>{@code dlock.leader.renewals}</td><td>counter</td><td>{@code name}; {@code result}: {@code ok},
 *       {@code failed}</td><td>renewals of a leader's term (one per retry period); one that found the hold gone is
 *       a revocation {@code lease_lost} instead</td></tr>
 *   <tr><td>{@code dlock.leader.term}</td><td>timer</td><td>{@code name}</td><td>each term, from the sending of
 *       its winning attempt to its revocation</td></tr>
 *   <tr><td>{@code dlock.leader.epoch.regressions}</td><td>counter</td><td>{@code name}</td><td>terms won with an
 *       epoch not above the highest this client's elections of that name won before: must stay 0 (anything else is
 *       a defect, or a counter reset that the epoch minting failed to cover)</td></tr>
 * </table>
 *
 * <h2>Lock names</h2>
 * Lock names are unbounded, so by default no meter carries one. {@link Builder#lockNameTags} opts in: then every meter
 * except the gauges and {@code dlock.renewal.calls} gets a {@code name} tag, the lock's name for names the filter
 * accepts and {@code *} for all others together. The filter must accept a bounded set of names: each accepted name
 * adds meters that live as long as this object.
 *
 * <h2>Observations</h2>
 * When an {@link Builder#observationRegistry ObservationRegistry} is given, every wait of the client is also an
 * {@link io.micrometer.observation.Observation}, started on the caller's thread when the call begins (so that a
 * tracing handler makes it a child of the caller's current span) and stopped when its outcome is known:
 * <table>
 *   <caption>Observations</caption>
 *   <tr><th>name</th><th>contextual name</th><th>what</th><th>{@code kind}</th><th>{@code outcome}</th></tr>
 *   <tr><td>{@code dlock.acquire}</td><td>{@code dlock acquire <kind>}</td><td>each lock acquisition, as the
 *       {@code dlock.acquire} timer</td><td>the lock's {@link LockKind#tagValue()}</td><td>{@code acquired},
 *       {@code timed_out}, {@code interrupted}, {@code failed}</td></tr>
 *   <tr><td>{@code dlock.permit.acquire}</td><td>{@code dlock acquire <kind>}</td><td>each semaphore acquisition,
 *       as the {@code dlock.permit.acquire} timer: its duration is the permit wait</td><td>{@code semaphore}
 *       ({@link io.dlock.DistributedSemaphore}), {@code leased_semaphore} ({@link io.dlock.LeasedSemaphore})</td>
 *       <td>as {@code dlock.acquire}</td></tr>
 *   <tr><td>{@code dlock.latch.await}</td><td>{@code dlock await latch}</td><td>each {@code await} of a
 *       {@link io.dlock.DistributedCountDownLatch}, as the {@code dlock.latch.await} timer</td><td>{@code latch}</td>
 *       <td>{@code opened}, {@code timed_out}, {@code interrupted}, {@code failed}</td></tr>
 * </table>
 * Their low-cardinality keys are {@code kind} and {@code outcome} (what a handler may turn into meter tags); the
 * object's name is only the high-cardinality key {@code name} (what a tracing handler puts on the span), whatever
 * {@link Builder#lockNameTags} says. A failed one carries its exception ({@code Observation.error}). The names start
 * with the {@link Builder#prefix prefix}. Observations are off by default: a handler that makes timers of them (as
 * Spring Boot's default one does) adds a second meter of each name beside this object's, with other tag keys.
 *
 * <p>Thread-safe. Meters are updated on the threads where the events happen (callers, Redis I/O threads, the
 * client's timer); nothing blocks.
 */
public final class LockMetrics implements MeterBinder, AutoCloseable {
    /** The default first part of every meter name. */
    public static final String DEFAULT_PREFIX = "dlock";

    private final LockClient client;
    private final MicrometerLockEvents events;
    private volatile boolean closed;

    private LockMetrics(Builder builder) {
        this.client = builder.client;
        this.events = new MicrometerLockEvents(builder.prefix, builder.lockNames, builder.observations);
        client.addEventListener(events);
    }

    /**
     * Starts building metrics for {@code client}.
     *
     * @param client the client whose events are recorded (not null)
     * @return a builder with the default settings
     */
    public static Builder builder(LockClient client) {
        return new Builder(client);
    }

    /**
     * Metrics for {@code client} with default settings ({@code builder(client).build()}), recording from now on.
     *
     * @param client the client whose events are recorded (not null)
     * @return the metrics, bound to no registry yet
     */
    public static LockMetrics of(LockClient client) {
        return builder(client).build();
    }

    /**
     * Registers the meters in {@code registry}; from then on the client's events are recorded there. May be called
     * for several registries (each gets every meter). Does nothing once closed. Does not block.
     *
     * @throws IllegalStateException when {@code registry} already has the meters of this prefix, bound by another
     *                               {@code LockMetrics} or by this one: their counts would add up
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        synchronized (this) {
            if (!closed) {
                events.bindTo(registry);
            }
        }
    }

    /**
     * Stops recording and removes this object's meters from every registry it was bound to (another
     * {@code LockMetrics} may then be bound to those). The client goes on; only this recorder stops listening.
     * Idempotent; never throws; does not block.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        client.removeEventListener(events);
        events.removeMeters();
    }

    @Override
    public String toString() {
        return "LockMetrics" + (closed ? "{closed}" : "");
    }

    /** Settings of a {@link LockMetrics}; not thread-safe. */
    public static final class Builder {
        private final LockClient client;
        private Predicate<String> lockNames;
        private ObservationRegistry observations;
        private String prefix = DEFAULT_PREFIX;

        private Builder(LockClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * Gives the meters of locks whose name {@code lockNames} accepts a {@code name} tag with that name (others are
         * counted together under {@code name=*}). Off by default. The filter must accept a bounded set of names; it is
         * called on the threads where events happen, so it must be thread-safe, quick and must not block.
         */
        public Builder lockNameTags(Predicate<String> lockNames) {
            this.lockNames = Objects.requireNonNull(lockNames, "lockNames");
            return this;
        }

        /**
         * Observes each lock acquisition, semaphore acquisition and latch await in {@code registry} as an
         * {@code Observation} carrying the object's name (names and keys: the class comment). Off by default; a
         * registry that is no-op when {@link #build} runs ({@code ObservationRegistry.NOOP}, or one without handlers
         * yet) observes nothing and costs nothing.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * The first part of every meter name (default {@value LockMetrics#DEFAULT_PREFIX}); not blank, no trailing
         * dot.
         */
        public Builder prefix(String meterNamePrefix) {
            Objects.requireNonNull(meterNamePrefix, "meterNamePrefix");
            if (meterNamePrefix.isBlank() || meterNamePrefix.endsWith(".")) {
                throw new IllegalArgumentException("meterNamePrefix: must not be blank or end with '.': '"
                        + meterNamePrefix + "'");
            }
            this.prefix = meterNamePrefix;
            return this;
        }

        /**
         * Attaches the metrics to the client (as a {@link LockEventListener}); they record into the registries given
         * to {@link LockMetrics#bindTo} from then on.
         *
         * @return the metrics, bound to no registry yet
         */
        public LockMetrics build() {
            return new LockMetrics(this);
        }
    }
}
