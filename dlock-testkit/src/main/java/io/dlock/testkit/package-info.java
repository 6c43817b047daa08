/**
 * Real {@code redis-server} processes for tests: {@link io.dlock.testkit.RedisServer} (start, stop, restart, pause,
 * resume, kill), the binary lookup {@link io.dlock.testkit.RedisBinary}, and the JUnit 5 extension
 * {@link io.dlock.testkit.RedisExtension} with {@link io.dlock.testkit.ClientSettings} and
 * {@link io.dlock.testkit.Topology}. Every deployment implements {@link io.dlock.testkit.RedisTopology}: one server,
 * a {@link io.dlock.testkit.SentinelTopology} or a {@link io.dlock.testkit.ClusterTopology}.
 */
package io.dlock.testkit;
