package io.dlock.internal.semaphore;

import io.dlock.LeasedSemaphore;
import io.dlock.Permit;
import io.dlock.internal.acquire.Args;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.concurrent.CompletableFuture;

/**
 * The leased semaphore's acquire forms (sync and async; one permit or several; with or without a wait and a fixed
 * lease), expanded once, as {@link PermitCounterBase} expands the count's: each checks its arguments and calls one of
 * three acquisitions the kind gives ({@link #waitFor}, {@link #tryOnce}, {@link #async(int, long, long, Function,
 * String)}), with the mapping of the granted permits to the form's answer.
 */
abstract class LeasedAcquireForms extends PermitCounterBase implements LeasedSemaphore {
    static final String KIND = "leased semaphore";

    static final Function<List<LeasedPermit>, Permit> ONE = l -> l == null ? null : l.get(0);
    static final Function<List<LeasedPermit>, Optional<Permit>> MAYBE_ONE =
            l -> Optional.ofNullable(l == null ? null : l.get(0));
    static final Function<List<LeasedPermit>, List<Permit>> ALL_OR_NONE =
            l -> l == null ? List.of() : List.copyOf(l);

    LeasedAcquireForms(SemaphoreServices services, String name) {
        super(services, name, KIND);
    }

    /**
     * A blocking acquisition: an interrupt abandons it (the one interrupt rule); a single attempt is not cut.
     *
     * @param leaseMs   the fixed lease, or -1 for the watchdog's
     * @param waitNanos 0 for one attempt, -1 ({@code WAIT_FOREVER}) for no limit
     */
    abstract <R> R waitFor(int permits, long leaseMs, long waitNanos, Function<List<LeasedPermit>, R> map,
                           String operation) throws InterruptedException;

    /** One attempt with the watchdog's lease, blocking: a short Redis call, which an interrupt does not cut. */
    abstract <R> R tryOnce(int permits, Function<List<LeasedPermit>, R> map, String operation);

    /** An acquisition whose answer completes on the client's executor; cancelling it gives the acquisition up. */
    abstract <R> CompletableFuture<R> async(int permits, long leaseMs, long waitNanos,
                                            Function<List<LeasedPermit>, R> map, String operation);

    /** @param leaseTime null for a watchdog lease */
    long leaseMillis(Duration leaseTime) {
        return leaseTime == null ? -1 : Args.durationMillis(KIND, getName(), "leaseTime", leaseTime);
    }

    private long waitNanos(Duration waitTime) {
        return Args.waitNanos(KIND, getName(), "waitTime", waitTime);
    }

    /** @return {@code permits}, checked: from 1 to {@link #MAX_PERMITS_AT_ONCE} */
    private int permitCount(int permits) {
        if (permits < 1 || permits > MAX_PERMITS_AT_ONCE) {
            throw new IllegalArgumentException(KIND + " '" + getName() + "': permits must be from 1 to "
                    + MAX_PERMITS_AT_ONCE + ": " + permits);
        }
        return permits;
    }

    @Override
    public Permit acquire() throws InterruptedException {
        return waitFor(1, -1, -1, ONE, "acquire");
    }

    @Override
    public CompletableFuture<Permit> acquireAsync() {
        return async(1, -1, -1, ONE, "acquire");
    }

    @Override
    public Permit acquire(Duration leaseTime) throws InterruptedException {
        return waitFor(1, leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1, ONE, "acquire");
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(Duration leaseTime) {
        return async(1, leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1, ONE, "acquire");
    }

    @Override
    public Optional<Permit> tryAcquire() {
        return tryOnce(1, MAYBE_ONE, "tryAcquire");
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync() {
        return async(1, -1, 0, MAYBE_ONE, "tryAcquire");
    }

    @Override
    public Optional<Permit> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime, null);
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime) {
        return tryAcquireAsync(waitTime, null);
    }

    @Override
    public Optional<Permit> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return waitFor(1, leaseMillis(leaseTime), waitNanos(waitTime), MAYBE_ONE, "tryAcquire");
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        return async(1, leaseMillis(leaseTime), waitNanos(waitTime), MAYBE_ONE, "tryAcquire");
    }

    @Override
    public List<Permit> acquire(int permits) throws InterruptedException {
        return waitFor(permitCount(permits), -1, -1, ALL_OR_NONE, "acquire");
    }

    @Override
    public CompletableFuture<List<Permit>> acquireAsync(int permits) {
        return async(permitCount(permits), -1, -1, ALL_OR_NONE, "acquire");
    }

    @Override
    public List<Permit> acquire(int permits, Duration leaseTime) throws InterruptedException {
        return waitFor(permitCount(permits), leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1,
                ALL_OR_NONE, "acquire");
    }

    @Override
    public CompletableFuture<List<Permit>> acquireAsync(int permits, Duration leaseTime) {
        return async(permitCount(permits), leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1,
                ALL_OR_NONE, "acquire");
    }

    @Override
    public List<Permit> tryAcquire(int permits) {
        return tryOnce(permitCount(permits), ALL_OR_NONE, "tryAcquire");
    }

    @Override
    public CompletableFuture<List<Permit>> tryAcquireAsync(int permits) {
        return async(permitCount(permits), -1, 0, ALL_OR_NONE, "tryAcquire");
    }

    @Override
    public List<Permit> tryAcquire(int permits, Duration waitTime, Duration leaseTime) throws InterruptedException {
        return waitFor(permitCount(permits), leaseMillis(leaseTime), waitNanos(waitTime), ALL_OR_NONE,
                "tryAcquire");
    }

    @Override
    public CompletableFuture<List<Permit>> tryAcquireAsync(int permits, Duration waitTime, Duration leaseTime) {
        return async(permitCount(permits), leaseMillis(leaseTime), waitNanos(waitTime), ALL_OR_NONE,
                "tryAcquire");
    }
}
