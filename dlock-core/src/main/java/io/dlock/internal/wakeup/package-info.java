/**
 * Pub/sub wake-ups of waiting acquisitions. Not API; may change without notice.
 *
 * <p>{@link io.dlock.internal.wakeup.WakeupHub} keeps one subscription per channel per client, shared and
 * reference-counted by the waiters of that channel, and turns unlock messages into wake-ups: {@code 0} wakes one
 * waiter, {@code 1} wakes all, a wake-up that finds nobody asleep is kept for the next waiter, and every sleep is
 * bounded by its caller. A channel can also be kept subscribed without a waiter ({@code WakeupHub.keep}: a line of
 * owners taking turns on a multi-lock), in which case it stores no wake-up for nobody.
 * {@link io.dlock.internal.wakeup.PubSubPort} is the subscribe/unsubscribe side of a transport.
 *
 * <p>Message handling runs on Lettuce's I/O thread: it only completes futures, never blocks and never runs user code.
 * See {@code docs/architecture.md} section 4 and {@code docs/protocol.md} section 1.3.
 */
package io.dlock.internal.wakeup;
