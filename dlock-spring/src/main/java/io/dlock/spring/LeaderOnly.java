package io.dlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this application leads the election named by {@link #value()}: a
 * {@code @Scheduled} job that every instance schedules runs on the leader alone, and stops when it stops leading.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 1000)
 * @LeaderOnly("billing")
 * public void bill() {
 *     long epoch = LeaderCalls.term("billing").orElseThrow().requireValid();
 *     ledger.append(epoch, nextBatch());     // the ledger refuses an epoch below the highest it saw
 * }
 *
 * @LeaderOnly("billing")
 * public void settle(@LeaderEpoch long epoch, LeaderTerm term, Batch batch) { ... }  // callers pass 0 and null
 * }</pre>
 *
 * <p>The election is a candidate of the context's {@link LeaderElections} bean (declare one, or use the Spring Boot
 * starter, which does, with timing from {@code dlock.leader.elections.<name>.*}); a name it was not given is added
 * with {@link io.dlock.LeaderElectionSettings#defaults()} and started with it. Active when a
 * {@link DistributedLockedAdvisor} is a bean ({@link EnableDistributedLocking}, or the starter), for calls through
 * the Spring proxy only.
 *
 * <p><b>What a call does.</b>
 * <ul>
 *   <li><b>Not the leader</b> (no valid term now, by this instance's own clock; no round trip): the method does not
 *       run, a line is logged at debug, and the call returns {@code null} (also for {@code void}), {@code 0} or
 *       {@code false} for primitives, an empty {@code Optional} ({@code OptionalInt}, …).</li>
 *   <li><b>The leader</b>: {@link io.dlock.LeaderTerm#requireValid()} is called just before the method (a term that
 *       ended in between skips the call as above); parameters of type {@link io.dlock.LeaderTerm} receive the term
 *       and parameters annotated {@link LeaderEpoch} its epoch, in place of what the caller passed; inside the call
 *       {@link LeaderCalls#term(String)} gives the term (for a {@code @Scheduled} method, which Spring allows no
 *       parameters). Its result or exception is the call's.</li>
 *   <li><b>The term ends while the method runs</b> (resigned, the election or the context closed, a lease or the
 *       connection lost): the calling thread is interrupted, and the lock is released only after the method has
 *       returned or thrown, or after the election's {@linkplain io.dlock.LeaderElectionSettings#stopTimeout() stop
 *       timeout}, whichever comes first: work that stops on the interrupt has stopped before another instance can
 *       lead. The interrupt is the term's end, not the caller's: when the method returns, the interrupt flag is
 *       cleared if the term's end set it (so a scheduler thread runs its next task uninterrupted). A method that
 *       ignores interrupts goes on running, no longer leading; guard each side effect with
 *       {@code requireValid()} and pass the epoch on, so that a fenced resource refuses late writes.</li>
 * </ul>
 *
 * <p>Only synchronous methods: a method whose declared result may carry its work on after it returned (a
 * {@code Future}, a {@code CompletionStage}, a Reactive Streams {@code Publisher}, …, as {@link DistributedLocked}
 * lists them) is refused when its proxy is created, since the term's end could no longer reach that work; so is a
 * {@link LeaderEpoch} parameter that is not a {@code long} or {@code Long}, and a blank name.
 *
 * <p>With {@link DistributedLocked} or {@link DistributedConcurrencyLimit} on the same method, the leadership is
 * checked first: a call that is skipped takes no lock and no permit.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /**
     * The election's name (its fenced lock's name in Redis), the same in every instance; {@code ${...}}
     * placeholders are resolved when the proxy is created.
     */
    String value();
}
