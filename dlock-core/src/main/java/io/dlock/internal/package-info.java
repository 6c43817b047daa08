/**
 * Internals of dlock-core: not API; may change without notice. Applications use {@link io.dlock.LockClient} and the
 * rest of the package {@code io.dlock}; nothing here is covered by compatibility promises, and the classes are public
 * only so that the packages of dlock-core can reach each other.
 *
 * <p>This package is the floor every other internal package stands on, and imports none of them:
 * <ul>
 *   <li>{@link io.dlock.internal.LockNames}: name checks, and the Redis keys and channels derived from a lock name
 *       exactly as Redisson derives them;</li>
 *   <li>{@link io.dlock.internal.Errors}: Redis and Lettuce failures turned into the API's exceptions (the one error
 *       mapper of every kind), and which of them mean "Redis is unavailable for now".</li>
 * </ul>
 * The composition root, which opens the connections and wires every kind, is {@code io.dlock.internal.client}; the
 * lock kinds are in {@code io.dlock.internal.lock}, the wait loop and the rules every kind shares in
 * {@code io.dlock.internal.acquire}, hold records and the watchdog in {@code io.dlock.internal.lease}, pub/sub
 * wake-ups in {@code io.dlock.internal.wakeup}, the Lua scripts in {@code io.dlock.internal.script}, connections in
 * {@code io.dlock.internal.transport}, lock events in {@code io.dlock.internal.events} (the Micrometer recorder is public:
 * {@code io.dlock.metrics}), and the synchronizers in {@code io.dlock.internal.semaphore},
 * {@code io.dlock.internal.latch} and {@code io.dlock.internal.multilock}. How they fit together:
 * {@code docs/architecture.md} §2 (the package graph); what goes over the wire: {@code docs/protocol.md}.
 */
package io.dlock.internal;
