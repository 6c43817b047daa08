/**
 * Micrometer metrics of a {@link io.dlock.LockClient}: {@link io.dlock.metrics.LockMetrics}, a {@code MeterBinder}
 * made from a client with {@code LockMetrics.of(client)} or {@code LockMetrics.builder(client)}.
 *
 * <p>Micrometer ({@code io.micrometer:micrometer-core}) is an optional dependency of dlock: add it to use this
 * package. Nothing else in dlock refers to Micrometer, so a client without metrics never loads it. The metrics are
 * built on the public lock event hook ({@link io.dlock.LockEventListener}, registered with
 * {@link io.dlock.LockClient#addEventListener}), which any other recorder may use as well.
 *
 * <p>The recorder behind {@code LockMetrics} lives here too, package-private (not API): {@code MicrometerLockEvents}
 * is the {@link io.dlock.LockEventListener} that {@code LockMetrics} registers with its client; it keeps the live
 * holds and waiting acquisitions per {@link io.dlock.LockKind}, and records every event into one
 * {@code MicrometerMeters} per bound registry ({@code SynchronizerMeters} for the semaphores and latches), and an
 * {@code Observation} per acquisition (of a lock or of permits) and per latch await when an
 * {@code ObservationRegistry} is given, all started and stopped in one place. Only these classes refer to
 * Micrometer. Like every lock event listener they are called on any thread and never block or throw. See
 * {@code docs/architecture.md} section 10.
 */
package io.dlock.metrics;
