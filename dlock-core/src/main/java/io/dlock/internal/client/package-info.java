/**
 * The composition root of dlock-core (not API): the only package that knows every other one, and that none imports
 * back, except the API's factory edge ({@code LockClient.create} calls {@link
 * io.dlock.internal.client.RedisLockClient#start}).
 * <ul>
 *   <li>{@link io.dlock.internal.client.RedisLockClient}: the {@code LockClient} that {@code LockClient.create}
 *       returns: it wires the parts every kind shares (timer, executor, wake-up hub, script runner, lease renewer, the
 *       services of each kind) once, hands out the objects of every kind, and closes them in order;</li>
 *   <li>{@link io.dlock.internal.client.ClientStart}: opens the connections and checks the server (its version, and
 *       the user's channel permissions) before anything is handed out;</li>
 *   <li>{@link io.dlock.internal.client.Snapshots}: the read-only snapshots of every kind ({@code LockClient.inspect…}),
 *       with {@link io.dlock.internal.client.LockInspector} for a lock's (its holders identified by their clients'
 *       cards, {@code io.dlock.internal.card});</li>
 *   <li>{@link io.dlock.internal.client.ChannelPermissionProbe}: the connect-time check that the Redis user may
 *       publish and subscribe on lock channels; {@link io.dlock.internal.client.ConnectFailures}: what a failed
 *       connect tells the user;</li>
 *   <li>{@link io.dlock.internal.client.Diagnostics}: what a client is doing now, for tests and inspection.</li>
 * </ul>
 */
package io.dlock.internal.client;
