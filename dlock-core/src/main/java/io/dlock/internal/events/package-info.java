/**
 * Lock events: how the lock code of one client reports to the {@link io.dlock.LockEventListener}s registered with
 * {@code LockClient.addEventListener}. Not API; may change without notice.
 *
 * <p>Locks ({@code RedisLock}: acquisitions and hand-offs) and the lease renewer (hold endings and
 * renewals) report to the client's {@link io.dlock.internal.events.EventSink}, which holds a no-op until a listener
 * is added, so a client without listeners pays one volatile read per event. Each listener is wrapped so that what it
 * throws never reaches the lock code; listeners run on the thread of the event and must never block. See
 * {@code docs/architecture.md} section 10.
 */
package io.dlock.internal.events;
