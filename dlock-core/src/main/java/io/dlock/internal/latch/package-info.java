/**
 * The count-down latch ({@link io.dlock.DistributedCountDownLatch}) on Redisson's {@code RCountDownLatch} wire, on the
 * lock wing's rule: a protocol describes, one class drives, the API sits over both. Not API; may change without notice.
 *
 * <ul>
 *   <li>{@code LatchProtocol}: what one latch sends and how it reads the replies: five scripts ({@code latch_*.lua},
 *       held by {@code LatchScripts}), one per change on the latch's key; a read of the state (an await's check,
 *       {@code getCount}, {@code remainTimeToLive}) is a plain GET and PTTL, with {@code latch_state} only to refuse a
 *       key that is not a latch (docs/protocol.md §11.2).</li>
 *   <li>{@link io.dlock.internal.latch.RedisCountDownLatch}: the API over the protocol and the client's groups.</li>
 *   <li>{@code LatchGroups} and {@code LatchGroup}: the awaiters of one latch in one client, which share everything but
 *       their outcome: one check of the state per event, one subscription, one sleep. The group drives, by the rule
 *       list atop it; {@code CheckRounds} (which members an answer holds for) and {@code FlushMarks} (which members a
 *       heard {@code 0} releases without a check) keep its bookkeeping, apart from any I/O.</li>
 *   <li>{@code LatchAwait}: one wait, holding no thread: its deadline, interrupt and outcome; it fails with
 *       {@link io.dlock.LockLostException} when it knew the latch on one run of the server and the key is gone on
 *       another ({@link io.dlock.internal.transport.ServerRuns}).</li>
 *   <li>{@code LatchChannel}: the latch's channel (Redisson's name) and how a script may publish on it.</li>
 *   <li>{@code LatchParts} (the client's parts the wing uses) and {@link io.dlock.internal.latch.LatchServices} (the
 *       wing's entries for the client).</li>
 * </ul>
 * Calls go one way: no two classes of this package call each other ({@code LatchRoomTest}). Wire protocol and design:
 * {@code docs/protocol.md} §11 (§11.3 for the shared checks).
 */
package io.dlock.internal.latch;
