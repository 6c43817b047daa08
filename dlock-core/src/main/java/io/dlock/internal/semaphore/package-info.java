/**
 * Internal: the distributed semaphores, {@link io.dlock.DistributedSemaphore} ({@link
 * io.dlock.internal.semaphore.RedisSemaphore}) and {@link io.dlock.LeasedSemaphore} ({@link
 * io.dlock.internal.semaphore.RedisLeasedSemaphore}), on Redisson's {@code RSemaphore} and
 * {@code RPermitExpirableSemaphore} wire (docs/protocol.md §13). Not API: public only so that the client in
 * {@code io.dlock.internal.client} can create them.
 *
 * <h2>Parts</h2>
 * <ul>
 *   <li>{@link io.dlock.internal.semaphore.SemaphoreServices}: what every semaphore of one client shares (scripts,
 *       wake-ups, timer, executor, the permit watchdog); semaphore objects keep nothing but their keys.</li>
 *   <li>{@link io.dlock.internal.semaphore.PermitAcquisition}: one acquisition of permits on the one wait loop of
 *       every kind ({@link io.dlock.internal.acquire.AcquireLoop}), with the permits' lost-reply rule: an id per
 *       attempt, under which the script records what it took, and an unanswered attempt undone at once by that id.</li>
 *   <li>{@link io.dlock.internal.semaphore.LocalPermits} (one per semaphore in use, in
 *       {@link io.dlock.internal.semaphore.LocalPermitLines}) and {@link io.dlock.internal.semaphore.PermitGate}: a
 *       release by this client hands its permits to this client's acquisitions waiting in line: a plain permit
 *       without a write, a leased permit's place in the table under the waiter's fresh id
 *       ({@link io.dlock.internal.semaphore.PermitTicket}, {@code pes_hand_on}).</li>
 *   <li>{@link io.dlock.internal.semaphore.LeasedPermit} and {@link io.dlock.internal.semaphore.PermitWatchdog}: a
 *       held leased permit, and the client's renewal and loss reports of them.</li>
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Every permit is either in the count or (leased) in the permit table, never both: each script moves it in one
 *       step. A plain permit handed on within the client stays out of the count, passing from one caller to the
 *       next; a leased one's place passes in one script call (one id out of the table, one in); exactly one waiter
 *       receives it (taken out of line under the line's monitor).</li>
 *   <li>A grant that nobody wants any more (its caller gave up or was interrupted while the attempt was in flight)
 *       is given back; a leased attempt whose reply is lost gives back its ids, which it chose itself.</li>
 *   <li>Several leased permits are taken all or none, in one script call; a list of ids is released all or none
 *       ({@code release(ids)}) or each on its own (clean-up).</li>
 *   <li>Expiries of leased permits are judged by the Redis server's clock only.</li>
 *   <li>Code on Lettuce's I/O threads never blocks and never runs user code; user futures complete on the client's
 *       executor.</li>
 * </ul>
 */
package io.dlock.internal.semaphore;
