/**
 * The count-down latch ({@link io.dlock.DistributedCountDownLatch}) on Redisson's {@code RCountDownLatch} wire. Not
 * API; may change without notice.
 *
 * <ul>
 *   <li>{@link io.dlock.internal.latch.RedisCountDownLatch}: the API over five scripts ({@code latch_*.lua}, held by
 *       {@code LatchScripts}); every operation is one script call on the latch's key.</li>
 *   <li>{@code LatchAwait}: one wait, holding no thread: check, subscribe, check again, sleep until a message or the
 *       bounded re-check, repeat.</li>
 *   <li>{@code LatchChannel}: the latch's channel (Redisson's name) and how a script may publish on it, which on a
 *       Cluster depends on whether the channel shares the key's slot.</li>
 *   <li>{@link io.dlock.internal.latch.LatchServices}: what every latch of one client shares; {@code LatchErrors}
 *       names the latch in every failure.</li>
 * </ul>
 * Wire protocol and design: {@code docs/protocol.md} §11.
 */
package io.dlock.internal.latch;
