/**
 * Internal: what every wing of dlock — the lock kinds, the semaphores, the latch, the multi-lock — waits, fails and
 * closes with, written once, a floor below the kinds (which import it; it imports none of them). Not API; may change
 * without notice.
 *
 * <ul>
 *   <li>{@link io.dlock.internal.acquire.AcquireLoop}: the one wait loop — attempt, join the object's channel
 *       ({@link io.dlock.internal.acquire.WakeMode}), attempt again once subscribed, sleep until a wake-up or the
 *       reply's bound, never past the deadline; an optional local gate ({@link io.dlock.internal.acquire.LocalTurn})
 *       for kinds whose owners queue inside the client; the outage back-off ({@link io.dlock.internal.acquire.Outage});
 *       the deadline rule (settled by the deadline plus a grace, whatever Redis does); give-up and undo.</li>
 *   <li>{@link io.dlock.internal.acquire.HeadStart}: the one rule by which a client whose release woke other
 *       clients' waiters holds its own acquisitions back for a moment, so the others can win their turn (locks' local
 *       cohorts and semaphores' local lines alike).</li>
 *   <li>{@link io.dlock.internal.acquire.SyncWaits}: the one sync waiter, with the one interrupt rule
 *       ({@code awaitOrAbandon}: an interrupted caller holds nothing); {@link io.dlock.internal.acquire.Callers}: how
 *       a future reaches its caller (on the client's executor, errors mapped, a cancel abandons).</li>
 *   <li>{@link io.dlock.internal.acquire.Acquisitions}: the front door and the one close rule. Every acquisition and
 *       wait of every wing starts with {@code begin(subject, wait)}: the one closed flag is checked, the start is
 *       reported to the event listeners ({@link io.dlock.internal.acquire.Subject}, the one place that maps a kind to
 *       its start and end events) and stamped on the client's one clock; the
 *       {@link io.dlock.internal.acquire.Admission} it returns reports the end once and registers the waiter. Every
 *       waiter and stray give-back in flight is registered, and {@code close()} fails the waiters and waits until
 *       each has cleaned up.</li>
 *   <li>{@link io.dlock.internal.acquire.PendingAcquisitions}: the locks' lost-reply bookkeeping over the hold table
 *       (the permits' is an id per attempt, {@code io.dlock.internal.semaphore.PermitAcquisition});
 *       {@link io.dlock.internal.acquire.Args}: the one argument rule (durations, waits, counts), checked before
 *       anything is sent.</li>
 * </ul>
 *
 * <p>Errors of every kind are mapped by {@link io.dlock.internal.Errors#toApi(Throwable, String, String, String)}.
 * Threads: loop steps run on Lettuce's I/O threads and the client's timer, never block and run no user code.
 */
package io.dlock.internal.acquire;
