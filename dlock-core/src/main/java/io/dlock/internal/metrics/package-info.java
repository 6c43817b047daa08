/**
 * The Micrometer recorder behind {@link io.dlock.metrics.LockMetrics}. Not API; may change without notice.
 *
 * <p>{@link io.dlock.internal.metrics.MicrometerLockEvents} is a {@link io.dlock.LockEventListener} that
 * {@code LockMetrics} registers with its client: it keeps the live holds and waiting acquisitions per
 * {@link io.dlock.LockKind}, and records every event into one {@link io.dlock.internal.metrics.MicrometerMeters} per
 * bound registry (and an {@code Observation} per acquisition when an {@code ObservationRegistry} is given). Only these
 * classes and {@code LockMetrics} refer to Micrometer, so a client without metrics never loads it. Like every lock
 * event listener they are called on any thread and never block or throw. See {@code docs/architecture.md} section 10.
 */
package io.dlock.internal.metrics;
