/**
 * Real {@code redis-server} processes on loopback, for tests, demos and benchmarks, without a test framework:
 * {@link io.dlock.redisprocess.RedisServer} (start, stop, restart, pause, resume, kill; plain or TLS, built by
 * {@link io.dlock.redisprocess.RedisServerBuilder}), a {@link io.dlock.redisprocess.SentinelTopology} or a
 * {@link io.dlock.redisprocess.ClusterTopology}, all {@link io.dlock.redisprocess.RedisTopology}s; the binary lookup
 * {@link io.dlock.redisprocess.RedisBinary}; {@link io.dlock.redisprocess.TlsCertificates} (generating them needs
 * BouncyCastle, an optional dependency); a minimal RESP client {@link io.dlock.redisprocess.Resp}; and bounded polling,
 * {@link io.dlock.redisprocess.Await}.
 *
 * <p>Only Unix-like systems (Linux, macOS) are supported. Nothing here runs at class-loading time: a JVM shutdown hook
 * that kills the servers this JVM started is installed when the first one starts, and servers left behind by dead JVMs
 * are killed only by an explicit {@link io.dlock.redisprocess.RedisServer#reapOrphans()}. The JUnit 5 extension built
 * on this package is in {@code dlock-testkit} ({@code io.dlock.testkit}).
 */
package io.dlock.redisprocess;
