package io.dlock.spring;

import io.dlock.LockKind;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method under a dlock lock shared by every instance of the service that uses the same Redis:
 * the lock is taken before the method runs and released when it returns or throws.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 * * * * *")
 * @DistributedLocked(name = "reports:nightly", whenBusy = WhenBusy.SKIP, minHoldTime = "30s", leaseTime = "10m")
 * public void nightlyReport() { ... }     // runs on one instance per tick
 *
 * @DistributedLocked(name = "orders:#{#order.id}", waitTime = "5s")
 * public Receipt pay(Order order) { ... } // one payment per order at a time, across instances
 * }</pre>
 *
 * <p>To let up to N calls run at once instead of one, see {@link DistributedConcurrencyLimit}.
 *
 * <p>Active when a {@link DistributedLockedAdvisor} is a bean of the context ({@link EnableDistributedLocking}, or
 * the Spring Boot auto-configuration), and only for calls that go through the Spring proxy (as {@code @Transactional}:
 * a call from inside the same object is not intercepted).
 *
 * <p><b>Durations</b> ({@link #waitTime()}, {@link #leaseTime()}, {@link #minHoldTime()}) are strings: a number with a
 * unit ({@code "500ms"}, {@code "5s"}, {@code "10m"}, {@code "2h"}, {@code "1d"}), ISO-8601 ({@code "PT5S"}), or a bare
 * number of milliseconds; {@code ${...}} placeholders are resolved against the application's environment first.
 * They are checked when the bean's proxy is created: a bad value fails the application's start-up with a message naming
 * the method and the attribute.
 *
 * <p><b>Owner.</b> A hold belongs to the call, not to its thread: the next call on the same thread (the next tick of a
 * scheduler thread) does not re-enter a hold kept by {@link #minHoldTime()}. Inside the call,
 * {@link LockedCalls#owner(String)} gives the call's owner, for a view of the lock that sees the hold.
 *
 * <p><b>Nested calls.</b> A call to a {@code @DistributedLocked} method made while the same thread is inside another
 * {@code @DistributedLocked} call of the same lock name acts as the outer call's owner, never waiting for its own
 * thread:
 * <ul>
 *   <li>the same kind, or {@link LockKind#PLAIN}, {@link LockKind#FAIR} and {@link LockKind#FENCED} among
 *       themselves (they share one hold in Redis): it runs inside the outer hold (no second acquisition, its own
 *       times ignored);</li>
 *   <li>{@link LockKind#READ} inside {@link LockKind#WRITE}: it re-enters the read side as the writer (a writer may
 *       read), with its own lease and minimum hold;</li>
 *   <li>any other pair ({@code WRITE} inside {@code READ}: a reader cannot become the writer; a read-write side
 *       inside a plain, fair or fenced hold, or the reverse: two kinds of lock on one Redis key) would wait for its
 *       own thread forever: the call throws {@link IllegalMonitorStateException} naming the method, the lock and
 *       both kinds, and the method does not run.</li>
 * </ul>
 *
 * <p><b>Reactor's {@code Mono} and {@code Flux}.</b> A method whose declared return type is exactly {@code Mono} or
 * {@code Flux} is locked per subscription, when {@code io.dlock:dlock-reactor} is on the class path (refused at
 * start-up otherwise): the call returns a deferred publisher of the same type at once, and each subscription to it
 * acquires the lock for an owner of its own, calls the method, subscribes to the publisher it returned, and releases
 * when that publisher completes, fails or is cancelled; a cancel goes through the method's publisher before the
 * release, and a hold lost while it runs cancels it and fails the call with {@link io.dlock.LockLostException} (the
 * rules of dlock-reactor's {@code ReactiveLock.withLock}). A method subscribed twice acquires twice; subscriptions
 * never re-enter each other's holds (nor a synchronous call's). {@link #waitTime()} and {@link #leaseTime()} are the
 * acquisition's; a lock still busy is the error signal {@link LockBusyException} under {@link WhenBusy#THROW} and an
 * empty completion under {@link WhenBusy#SKIP}. A {@code Mono} emits its value after the release, a {@code Flux} its
 * elements while the lock is held. {@link #minHoldTime()} other than {@code "0"} is refused at start-up, and
 * {@link LockedCalls} does not see such holds.
 *
 * <p><b>Other return types.</b> Only synchronous results: the lock is released when the method returns, so work that a
 * result carries on afterwards would run unlocked. When the proxy is created, a method is refused whose declared
 * return type is (or extends) a {@link java.util.concurrent.Future}, a {@link java.util.concurrent.CompletionStage},
 * a {@link java.util.concurrent.Callable}, a {@link java.util.concurrent.Flow.Publisher} or Reactive Streams
 * {@code Publisher} (other than a declared {@code Mono} or {@code Flux}), an RxJava, Mutiny, Vert.x, Kotlin or Scala asynchronous
 * type, a {@link java.util.stream.Stream} (lazy), an {@link java.util.Iterator} or {@link java.util.Spliterator},
 * Spring MVC's {@code DeferredResult}, {@code WebAsyncTask}, {@code ResponseBodyEmitter} (and {@code SseEmitter}) or
 * {@code StreamingResponseBody}, any type Spring's {@code ReactiveAdapterRegistry} knows, or one of these inside an
 * {@code Optional}, a collection, a map, an array or a {@code ResponseEntity}; so is a Kotlin {@code suspend}
 * function. A method whose declared type lets such an object through ({@code Object}, say) is checked on every call:
 * when it returns one (or an {@code Optional} or {@code ResponseEntity} holding one), the call fails with
 * {@link IllegalStateException} naming the method and the class, <em>before</em> the lock is released; a returned
 * future is cancelled first (work it had not started never runs; work already running goes on, unlocked), a stream is
 * closed, anything else is dropped unconsumed (a callable or a cold publisher never runs). Lock inside the
 * asynchronous work instead (the async methods of {@link io.dlock.DistributedLock}, for an owner from
 * {@link io.dlock.LockClient#newOwner()}).
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLocked {

    /** {@link #leaseTime()} meaning "the watchdog": the lease is renewed while the method runs. */
    String WATCHDOG = "";

    /** {@link #waitTime()} meaning "no limit": wait until the lock is free. */
    String WAIT_FOREVER = "forever";

    /**
     * The lock's name, also its Redis key. Plain text, or a template in which each {@code #{...}} is a SpEL expression
     * evaluated on every call: method parameters by name ({@code #{#order.id}}, needs {@code -parameters} at compile
     * time, which Spring Boot's build plugins set) or by position ({@code #{#p0}}, {@code #{#a0}}), the root object's
     * {@code method}, {@code args}, {@code target} and {@code targetClass}, and beans ({@code #{@tenant.id()}}).
     * {@code ${...}} placeholders are resolved once, when the proxy is created. A template that refers to a variable
     * no call defines (a parameter name the class file does not carry because it was compiled without
     * {@code -parameters}, a misspelt name, {@code #p2} of a method with two parameters) would be null in every call,
     * so that every call shared one lock: it is refused when the proxy is created, naming the method and the fix. A
     * name that evaluates to blank, or an expression that fails, throws {@link IllegalArgumentException} naming the
     * method and the template; the method does not run.
     */
    String name();

    /**
     * The kind of lock ({@link io.dlock.LockClient#getLock(LockKind, String)}); {@link LockKind#PLAIN} by default.
     * Under {@link LockKind#FENCED} the method may read its hold's token with
     * {@code client.getFencedLock(name).as(LockedCalls.owner(name).orElseThrow()).getToken()} (the hold is the
     * call's, not its thread's: see {@link LockedCalls}).
     */
    LockKind kind() default LockKind.PLAIN;

    /**
     * How long a call waits for the lock when someone else holds it; {@code "0"} (the default) is one attempt,
     * {@link #WAIT_FOREVER} no limit.
     */
    String waitTime() default "0";

    /**
     * The maximum hold: a fixed lease after which Redis frees the lock even if the method still runs (or the instance
     * died). {@link #WATCHDOG} (the default) renews the lease while the method runs, so a crashed instance frees the
     * lock after the client's watchdog timeout (30 s by default).
     */
    String leaseTime() default WATCHDOG;

    /**
     * The minimum hold, counted from the acquisition: when the method returns sooner, the lock stays held until this
     * time has passed, so that a fast {@code @Scheduled} job does not run again on another instance whose clock fires
     * the same tick a little later. The caller is not blocked: the release is scheduled. {@code "0"} and the default
     * ({@code ""}, none given) release at once; the difference: a {@code @Scheduled} method without a minimum hold
     * given logs a warning when its proxy is created, since it runs twice per tick whenever the instances' clocks
     * differ by more than the method takes ({@code "0"} says that is meant).
     *
     * <p>Choosing it: the hold counts from the acquisition, not from the tick, so a run that its scheduler starts
     * {@code L} late holds the lock until {@code L} + the minimum hold after its tick (under a burst, Spring Boot's
     * virtual-thread scheduler started ticks up to 0.5 s late, and one tick in 90 ran on neither instance: the late
     * run before still held the lock). With {@code D} the largest difference between the instances' clocks and
     * {@code L} the worst lateness of a tick's start, choose it above {@code D + L} (a later instance still finds
     * the lock held) and below the interval minus {@code L} (a late run has let go by the next tick).
     *
     * <p>Must not exceed a fixed {@link #leaseTime()}. A minimum hold as long as the fixed lease (ShedLock's
     * {@code lockAtLeastFor = lockAtMostFor}) ends 20 ms before the client stops counting on the hold (the lease minus
     * its margin of 1% + 2 ms, {@code leaseValidFor()}), so that a hold meant to end there is released, not reported
     * lost. See the module's README for what happens when the instance stops during the minimum hold.
     */
    String minHoldTime() default "";

    /** What a call does when the lock stays busy for the whole {@link #waitTime()}; {@link WhenBusy#THROW} by default. */
    WhenBusy whenBusy() default WhenBusy.THROW;
}
