/**
 * Internals of dlock-core: not API; may change without notice. Applications use {@link io.dlock.LockClient} and the
 * rest of the package {@code io.dlock}; nothing here is covered by compatibility promises, and the classes are public
 * only so that the packages of dlock-core can reach each other.
 *
 * <p>This package holds the client itself and what stands beside the locks:
 * <ul>
 *   <li>{@link io.dlock.internal.RedisLockClient}, the {@code LockClient} that {@code LockClient.create} returns: it
 *       opens the transport, checks the server, wires the shared parts (timer, executor, wake-up hub, script runner,
 *       lease renewer) and hands out the lock objects;</li>
 *   <li>{@link io.dlock.internal.LockNames}: name checks, and the Redis keys and channels derived from a lock name
 *       exactly as Redisson derives them;</li>
 *   <li>{@link io.dlock.internal.LockInspector}: the read-only snapshot behind {@code LockClient.inspect};</li>
 *   <li>the connect-time check that the Redis user may publish and subscribe on lock channels;</li>
 *   <li>{@link io.dlock.internal.Errors}: Redis and Lettuce failures turned into the API's exceptions, and which of
 *       them mean "Redis is unavailable for now"; {@link io.dlock.internal.Redaction}: credentials kept out of
 *       messages and logs.</li>
 * </ul>
 * The lock kinds are in {@code io.dlock.internal.lock}, hold records and the watchdog in
 * {@code io.dlock.internal.lease}, pub/sub wake-ups in {@code io.dlock.internal.wakeup}, the Lua scripts in
 * {@code io.dlock.internal.script}, connections in {@code io.dlock.internal.transport}, lock events in
 * {@code io.dlock.internal.events} and the Micrometer recorder in {@code io.dlock.internal.metrics}. How they fit
 * together: {@code docs/architecture.md}; what goes over the wire: {@code docs/protocol.md}.
 */
package io.dlock.internal;
