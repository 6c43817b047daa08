/**
 * dlock: distributed locks for Java on Redis, wire-compatible with Redisson.
 *
 * <p>Start at {@link io.dlock.LockClient}. Everything a user touches lives in this package, and Micrometer metrics in
 * {@code io.dlock.metrics}; the {@code io.dlock.internal} packages may change without notice.
 */
package io.dlock;
