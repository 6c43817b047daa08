/**
 * The count-down latch ({@link io.dlock.DistributedCountDownLatch}) on Redisson's {@code RCountDownLatch} wire. Not
 * API; may change without notice.
 *
 * <ul>
 *   <li>{@link io.dlock.internal.latch.RedisCountDownLatch}: the API over five scripts ({@code latch_*.lua}, held by
 *       {@code LatchScripts}); every change is one script call on the latch's key; a read of the state (an await's
 *       check, {@code getCount}, {@code remainTimeToLive}) is a plain GET and PTTL, with {@code latch_state} only to
 *       refuse a key that is not a latch (docs/protocol.md §11.2).</li>
 *   <li>{@code LatchGroup}: the awaiters of one latch in one client, which share everything but their outcome: one
 *       check of the state per event (a join, a message, the bounded re-check), one subscription, one sleep. An answer
 *       holds only for members that joined before its check was sent; a closed one from before the subscription was
 *       confirmed holds for nobody. {@code CheckRounds} keeps that bookkeeping, apart from any I/O. On a standalone
 *       server a {@code 0} heard after the answer to a flush point (a {@code SUBSCRIBE} of the channel) sent after a
 *       member joined releases that member without a check ({@code FlushMarks}: which members it witnesses).</li>
 *   <li>{@code LatchAwait}: one wait, holding no thread: a group member with its own deadline, interrupt and
 *       outcome; it fails with {@link io.dlock.LockLostException} when it knew the latch on one run of the server
 *       (read it closed there, or began waiting there) and the key is gone on another
 *       ({@link io.dlock.internal.transport.ServerRuns}: a restart or failover lost it; only a missing key on a
 *       changed run counts).</li>
 *   <li>{@code LatchChannel}: the latch's channel (Redisson's name) and how a script may publish on it, which on a
 *       Cluster depends on whether the channel shares the key's slot.</li>
 *   <li>{@link io.dlock.internal.latch.LatchServices}: what every latch of one client shares, the groups included;
 *       Failures are named by the one error mapper ({@code io.dlock.internal.Errors}).</li>
 * </ul>
 * Wire protocol and design: {@code docs/protocol.md} §11 (§11.3 for the shared checks).
 */
package io.dlock.internal.latch;
