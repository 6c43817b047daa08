/**
 * Real {@code redis-server} processes for tests: {@link io.dlock.testkit.RedisServer} (start, stop, restart, pause,
 * resume, kill), the binary lookup {@link io.dlock.testkit.RedisBinary}, and the JUnit 5 extension
 * {@link io.dlock.testkit.RedisExtension} with {@link io.dlock.testkit.ClientSettings}. Every deployment implements
 * {@link io.dlock.testkit.RedisTopology}; Sentinel and Cluster topologies are planned.
 */
package io.dlock.testkit;
