package io.dlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Lets at most {@link #permits()} calls of the annotated method run at once across every instance of the service that
 * uses the same Redis: each call takes one permit of the {@link io.dlock.LeasedSemaphore} named {@link #name()}
 * before the method runs and gives it back when the method returns or throws.
 *
 * <pre>{@code
 * @DistributedConcurrencyLimit(name = "partner-api", permits = 4, waitTime = "10s")
 * public Quote quote(Order order) { ... }   // at most 4 calls to the partner at once, across instances
 *
 * @DistributedConcurrencyLimit(name = "exports:#{#tenant}", permits = 2, whenBusy = WhenBusy.SKIP)
 * public void export(String tenant) { ... } // at most 2 exports per tenant; a third call returns without running
 * }</pre>
 *
 * <p>Active wherever {@link DistributedLocked} is (the same {@link DistributedLockedAdvisor}, so
 * {@link EnableDistributedLocking} and the Spring Boot starter turn on both), and only for calls through the Spring
 * proxy.
 *
 * <p><b>Lease.</b> A permit is leased, never leaked: under {@link #WATCHDOG} (the default) the client's watchdog
 * renews it while the method runs, and a crashed instance's permits come back within the watchdog timeout (30 s by
 * default); a fixed {@link #leaseTime()} frees the permit after that time even if the method still runs. A permit
 * whose lease ended before the method returned (a fixed lease ran out, renewals failed, someone deleted the
 * semaphore) means the limit may have been exceeded: the call then fails with {@link io.dlock.LockLostException}
 * after a successful method (added as suppressed to the method's exception otherwise), and the client's
 * {@link io.dlock.LeaseLostListener}s hear of it.
 *
 * <p><b>The number of permits.</b> The semaphore is created with {@link #permits()} permits on the first call of each
 * name in each application instance ({@link io.dlock.LeasedSemaphore#trySetPermits(int)}). When it exists already with
 * a different total (available plus acquired: an older deployment with another limit, or someone who changed it), the
 * annotation wins: the instance sets the total to {@link #permits()}
 * ({@link io.dlock.LeasedSemaphore#setPermits(int)}, which keeps the permits held and counts them) and logs a warning
 * naming both numbers. So during a rolling deployment that changes the limit, the last instance started decides; two
 * methods that share a name must give it the same number. The semaphore has no TTL (it is a few bytes that every
 * instance needs).
 *
 * <p><b>A semaphore gone from Redis</b> (a restart without persistence, a failover that lost it, a delete) is set up
 * again: a call that finds no permit checks, with one {@link io.dlock.LeasedSemaphore#trySetPermits(int)}, whether the
 * semaphore still exists, creates it with {@link #permits()} permits if not (logging a warning), and goes on waiting
 * with the time it has left. A waiting call checks at least once a second, so a {@link #WAIT_FOREVER} call does not
 * hang on a semaphore that is gone, and a call is refused as busy only after the check found the semaphore in Redis.
 * Permits held when Redis lost the semaphore are lost with it and not counted in the new one: until the calls
 * holding them end, each with {@link io.dlock.LockLostException} (its release finds nothing, see the lease above),
 * up to twice {@link #permits()} calls may run at once.
 *
 * <p><b>Nested calls.</b> A call made while the same thread is inside another call limited by the same semaphore name
 * runs inside the outer call's permit (takes none of its own, its own times ignored): one execution, one permit, and
 * no thread waits for a permit it holds itself.
 *
 * <p><b>With {@link DistributedLocked}</b> on the same method, the permit is taken first and the lock inside it.
 *
 * <p><b>Durations, names and return types</b> are as for {@link DistributedLocked}: the same duration formats and
 * placeholders, the same SpEL name templates (checked when the proxy is created), and the same refusal of
 * asynchronous or lazy results, which would run after the permit is given back, except a declared {@code Mono} or
 * {@code Flux} (with {@code io.dlock:dlock-reactor} on the class path): each subscription holds one permit from the
 * subscription until the publisher completes, fails or is cancelled, {@link ConcurrencyLimitReachedException} being
 * the error signal under {@link WhenBusy#THROW} and an empty completion the result under {@link WhenBusy#SKIP}. A
 * cancel goes through the method's publisher before the permit is given back, and a permit lost while it runs (its
 * lease ended, its id released elsewhere) cancels it and fails the call with {@link io.dlock.LockLostException} (the
 * rules of dlock-reactor's {@code ReactiveLeasedSemaphore.withPermit}). Subscriptions do not nest in each other's
 * permits.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedConcurrencyLimit {

    /** {@link #leaseTime()} meaning "the watchdog": the permit's lease is renewed while the method runs. */
    String WATCHDOG = "";

    /** {@link #waitTime()} meaning "no limit": wait until a permit is free. */
    String WAIT_FOREVER = "forever";

    /**
     * The semaphore's name, also its Redis key (see {@link io.dlock.LeasedSemaphore} for the keys it uses). Plain text
     * or a template, as {@link DistributedLocked#name()}: each evaluated name is a semaphore of its own, with
     * {@link #permits()} permits.
     */
    String name();

    /** How many calls may run at once across instances, {@code >= 1}. See the class comment for how it is set. */
    int permits();

    /**
     * How long a call waits for a permit when all are taken; {@code "0"} (the default) is one attempt,
     * {@link #WAIT_FOREVER} no limit.
     */
    String waitTime() default "0";

    /**
     * The permit's lease: {@link #WATCHDOG} (the default) renews it while the method runs; a duration (up to
     * {@link io.dlock.DistributedLock#MAX_LEASE}) frees it that long after it was granted, even if the method still
     * runs.
     */
    String leaseTime() default WATCHDOG;

    /**
     * What a call does when no permit came within the {@link #waitTime()}: {@link WhenBusy#THROW} (the default) throws
     * {@link ConcurrencyLimitReachedException}; {@link WhenBusy#SKIP} returns without running the method.
     */
    WhenBusy whenBusy() default WhenBusy.THROW;
}
