package io.dlock;

import java.util.List;

/**
 * Several locks of one client taken as one: all or nothing. Its members may be of any kind (plain, fair, fenced, either
 * side of a read-write lock) and live on different Redis Cluster slots or shards; it has no Redis key of its own, so
 * Redisson's {@code RedissonMultiLock} over the same names excludes it and is excluded by it (each member excludes
 * Redisson's lock of its name).
 *
 * <p><b>One global order.</b> Members are always taken in one order, whatever the order they were given in: by name
 * ({@link String#compareTo}), and for the two sides of one read-write lock the write side first (a writer may also
 * read; a reader may not upgrade). Every dlock multi-lock of every client uses that order, so two multi-locks over
 * the same names given in opposite orders cannot deadlock: whoever holds a member waits only for members after it.
 * (Redisson takes its members in the order given and relies on random retry times; a Redisson multi-lock and a dlock
 * one over the same names in the opposite order may still wait on each other until one's wait time runs out.)
 *
 * <p><b>All or nothing.</b> An acquisition that cannot take every member (a {@code tryLock} whose time ran out, an
 * interrupt, a cancelled future, a Redis failure) releases the members it took before it returns or fails; if such
 * a release fails too, that failure is attached ({@link Throwable#getSuppressed()}) to what the acquisition
 * throws, and an acquisition that would have returned {@code false} throws a {@link LockException} instead. A member
 * taken with a fixed lease that ran out before the give-back (or that was removed meanwhile) has nothing left to give
 * back and is no failure: the acquisition's own outcome stands (its loss goes to the lease-lost listeners).
 *
 * <p><b>One step on one slot.</b> When every member is a plain lock ({@link LockClient#getLock}) and every name
 * hashes to one slot (a common hash tag: {@code {order-17}:stock}, {@code {order-17}:payment}), each attempt takes
 * all members in one atomic script, or none: the owner never holds some members while it waits for others, and an
 * uncontended acquisition costs one round trip. A waiting acquisition then wakes on the release of any member; owners
 * of one client waiting for the same members take turns inside the client (one of them waits in Redis), except an
 * owner that holds a member already, whose re-entry never waits for a turn. The rule is the same on a standalone
 * server, so that a multi-lock behaves alike on every topology. Otherwise the first member is taken on its own
 * (waiting for it if need be); then one single attempt per member not held yet is sent, all at once (one round trip
 * for the members that are free), and the members before the first one refused are kept; any taken beyond it are released, and Redis has answered those releases, before the
 * acquisition waits for the refused member. So, as if taken one after another in the global order above, an
 * acquisition only ever waits while holding members that come before the one it waits for.
 *
 * <p><b>Lease and watchdog.</b> With {@link #LEASE_WATCHDOG} every member is renewed by the watchdog while held and
 * expires after a crash, as a single lock. With a fixed lease, the lease of every member runs from the moment the
 * last member is taken: members taken one after another are held with the watchdog until every member is taken (so
 * none runs out while a later one is awaited), then each is given the lease; taken in one step (above), all start
 * together. An acquisition returns {@code true} only when every member is held at that moment: a member found gone
 * when its lease is set makes it give back what it took and try again while its waiting time lasts. As for a single
 * lock, {@link #leaseValidFor()} is then positive unless the lease is shorter than a round trip. A member the owner
 * already holds with the watchdog keeps its renewal (its TTL is not cut to the lease); the multi-lock's acquisition
 * of it ends with the multi-lock's release. The waiting time of {@code tryLock} is for the whole multi-lock: each
 * member gets what is left of it.
 *
 * <p><b>Release.</b> {@link #unlock()} releases <em>every</em> member, in the reverse order, even when some fail
 * (Redisson's stops at the first failure and leaves the rest locked and renewed). When some fail, it throws one
 * exception naming each failed lock and why, with the members' own exceptions attached as suppressed: an
 * {@link IllegalMonitorStateException} when every failure is one (a member not held: never acquired, expired,
 * force-unlocked), else a {@link LockException}.
 *
 * <p><b>The rest of the lock API</b>, over the members (the owner is the calling thread, or the owner of a view of
 * {@link #as}):
 * <ul>
 *   <li>{@link #getName()}: a description, {@code MultiLock[a, b(WRITE), c(FAIR)]}, not a Redis key;</li>
 *   <li>{@link #isHeldByCurrentThread()} (and the deprecated {@link #isHeldByThread(long)}): whether the owner holds
 *       every member;</li>
 *   <li>{@link #getHoldCount()}: the smallest of the owner's hold counts of the members (0 when one is not held);</li>
 *   <li>{@link #leaseValidFor()}: the shortest of the members' (zero when one is not held). Like every hold's, a
 *       member's validity assumes Redis keeps its data: a Redis that restarts without persistence while the
 *       multi-lock is being taken loses the members taken before, which the client learns of at the next renewal
 *       or, with a fixed lease, when their lease is set once the last member is taken (the acquisition then starts
 *       again);</li>
 *   <li>{@link #isLocked()}: whether any member is held by anybody (the multi-lock could not be taken now);</li>
 *   <li>{@link #remainTimeToLive()}: the shortest remaining time to live of the members that are held,
 *       {@link #TTL_NOT_LOCKED} when none is, {@link #TTL_NO_EXPIRY} when none of them expires;</li>
 *   <li>{@link #forceUnlock()}: force-unlocks every member (failures reported as for {@code unlock}); whether any
 *       was removed;</li>
 *   <li>{@link #extendLease(java.time.Duration)}: extends every member (failures reported as for
 *       {@code unlock});</li>
 *   <li>{@link #newCondition()}: unsupported.</li>
 * </ul>
 * Re-entry works as for each member: an owner that holds the multi-lock may acquire it again and must release it as
 * many times. Queries make one round trip per member, in turn.
 *
 * <p><b>Atomic only in one step.</b> Outside the one-step case above, each member is taken by its own attempt (sent
 * together with the others' when they are not awaited); between them, others may see some members held and others
 * not (never all of them held by two owners), and a member after a busy one may be held for one round trip before
 * it is given back. Re-entry never waits behind other owners of the client, in either case.
 *
 * <p>Thread-safe and immutable; cheap to create. Errors as on {@link DistributedLock}, the messages naming the
 * member at fault.
 */
public interface MultiLock extends DistributedLock {

    /** @return the members, in the order they are acquired (released in the reverse order); unmodifiable */
    List<DistributedLock> members();

    /** A view of this multi-lock whose every method acts for {@code owner}: each member's view of that owner. */
    @Override
    MultiLock as(LockOwner owner);
}
