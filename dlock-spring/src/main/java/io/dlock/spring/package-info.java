/**
 * dlock for Spring applications, without Spring Boot: methods run under a distributed lock by annotation, and a Spring
 * Integration lock registry whose locks are dlock locks.
 *
 * <p>What applications use, all of it public API of the module {@code dlock-spring}:
 * <ul>
 *   <li>{@link io.dlock.spring.DistributedLocked} on a method, with {@link io.dlock.LockKind} (which lock),
 *       {@link io.dlock.spring.WhenBusy} (what happens when the lock stays busy),
 *       {@link io.dlock.spring.LockBusyException} and {@link io.dlock.spring.LockedCalls} (the owner of a call's
 *       hold, inside the call); {@link io.dlock.spring.DistributedConcurrencyLimit} on a method (at most N calls at
 *       once across instances, one leased semaphore permit each), with
 *       {@link io.dlock.spring.ConcurrencyLimitReachedException}; both turned on by {@link io.dlock.spring.EnableDistributedLocking} (or by
 *       the Spring Boot starter), which registers a {@link io.dlock.spring.DistributedLockedAdvisor} that may also be
 *       declared as a bean directly;</li>
 *   <li>{@link io.dlock.spring.DlockLockRegistry}, a Spring Integration {@code LockRegistry} that replaces
 *       {@code RedisLockRegistry};</li>
 *   <li>{@link io.dlock.spring.DlockLeaderInitiator}, a Spring Integration leader initiator on dlock's
 *       {@link io.dlock.LeaderElection} that replaces {@code LockRegistryLeaderInitiator};</li>
 *   <li>{@link io.dlock.spring.LeaderOnly} on a method (it runs only while this instance leads the election), with
 *       {@link io.dlock.spring.LeaderEpoch} (a parameter that receives the term's epoch),
 *       {@link io.dlock.spring.LeaderCalls} (the term, inside the call) and {@link io.dlock.spring.LeaderElections}
 *       (the elections the application runs, a bean).</li>
 * </ul>
 * Every other class of this package is package-private: how an annotated call is parsed, intercepted and released
 * (including the delayed release of a minimum hold and the permits of a concurrency limit), the registry's lock
 * objects, and how a leader-only call is let in and stopped. They may change without notice.
 *
 * <p>Both need one {@link io.dlock.LockClient} from the application; neither closes it. See the module's README.
 */
package io.dlock.spring;
