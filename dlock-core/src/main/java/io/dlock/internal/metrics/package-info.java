/**
 * The events that locks report for metrics, and their Micrometer recorder. Not API; may change without notice (the
 * API is {@link io.dlock.LockMetrics} and {@code LockClientConfig.Builder.meterRegistry}).
 *
 * <p>Locks and the lease renewer report to an {@link io.dlock.internal.metrics.EventSink}, which holds
 * {@link io.dlock.internal.metrics.LockEvents#NONE} until metrics are attached, so a client without metrics pays one
 * volatile read per event and never loads Micrometer. {@link io.dlock.internal.metrics.MicrometerLockEvents} records
 * the events as meters in every bound registry; {@link io.dlock.internal.metrics.ConfiguredMetrics} and
 * {@link io.dlock.internal.metrics.MeterRegistryType} serve the registry given in the client's configuration, whose
 * type names no Micrometer class. Implementations of {@code LockEvents} are called on any thread and must never
 * block or throw. See {@code docs/architecture.md} section 10.
 */
package io.dlock.internal.metrics;
