/**
 * Connections to one Redis deployment. Not API; may change without notice.
 *
 * <p>{@link io.dlock.internal.transport.RedisTransport} is what differs between deployments: the command and pub/sub
 * connections, the publish command the scripts are given, how keys map to Cluster slots and where a {@code WAIT}
 * goes. Its implementations serve a standalone server or the master that Redis Sentinel names
 * ({@code redis://}, {@code rediss://}, {@code redis-sentinel://}), and a Redis Cluster ({@code redis-cluster://},
 * {@code rediss-cluster://}, including sharded pub/sub where the servers have it). Beside them: TLS options, the
 * per-command timeouts, {@link io.dlock.internal.transport.ServerVersion} (the oldest Redis supported), and
 * {@link io.dlock.internal.transport.ServerRuns}: the run id of the server behind each key, the one place where the
 * client tells that Redis restarted or failed over since it read a key (used by the count-down latch; any kind whose
 * state a restart would silently reset can use it).
 *
 * <p>Thread-safe; nothing blocks but opening and closing. See {@code docs/architecture.md} section 9 and
 * {@code docs/protocol.md} sections 1.3 and 8.
 */
package io.dlock.internal.transport;
