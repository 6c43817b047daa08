/**
 * Micrometer metrics of a {@link io.dlock.LockClient}: {@link io.dlock.metrics.LockMetrics}, a {@code MeterBinder}
 * made from a client with {@code LockMetrics.of(client)} or {@code LockMetrics.builder(client)}.
 *
 * <p>Micrometer ({@code io.micrometer:micrometer-core}) is an optional dependency of dlock: add it to use this
 * package. Nothing else in dlock refers to Micrometer, so a client without metrics never loads it. The metrics are
 * built on the public lock event hook ({@link io.dlock.LockEventListener}, registered with
 * {@link io.dlock.LockClient#addEventListener}), which any other recorder may use as well.
 */
package io.dlock.metrics;
