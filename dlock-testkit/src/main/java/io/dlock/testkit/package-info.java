/**
 * The JUnit 5 extension {@link io.dlock.testkit.RedisExtension}, with {@link io.dlock.testkit.ClientSettings} and
 * {@link io.dlock.testkit.Topology}: each test class gets a real Redis deployment and each test an empty database and
 * ready {@code LockClient}s. The deployments themselves ({@code RedisServer}, {@code SentinelTopology},
 * {@code ClusterTopology}) and {@code Await} are in {@code io.dlock.redisprocess} (module {@code dlock-redis-process}),
 * which has no test framework. {@link io.dlock.testkit.FencedRegister} is the fenced register a leader election's
 * proof writes to, with the checks of what the election promises. {@link io.dlock.testkit.ServerCrashes} skips a test
 * whose server crashes coming back after a kill (a server bug, said so), as the extension's own recovery does.
 */
package io.dlock.testkit;
