package io.dlock.internal.parts;

import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.transport.ServerRuns;
import io.dlock.internal.wakeup.WakeupHub;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.util.function.ToIntFunction;

/**
 * What every wing of one client shares, built once by the composition root ({@code RedisLockClient}): each wing's
 * services are these parts plus its own. Immutable; every part is thread-safe.
 *
 * @param settings     the client's id and the settings every wing reads
 * @param acquisitions the front door of every acquisition and wait: the one monotonic clock, the event listeners, the
 *                     sync waits, the callers' executor, the one closed flag and the close rule
 * @param redis        commands, scripts, wake-ups, the servers' run ids, the key-to-slot function
 * @param timer        the client's one timer (never blocks; tasks must not block either)
 * @param clock        the client's one clock: monotonic (the same as {@link Acquisitions#nanoTime}) and wall
 */
public record ClientParts(Settings settings, Acquisitions acquisitions, Redis redis, TaskScheduler timer,
                          ClientClock clock) {
    /**
     * @param clientId         this client's UUID, the first half of every owner field
     * @param watchdogMs       the lease of a hold taken without one; renewed every third of it
     * @param commandTimeoutMs how long a command may go unanswered before it counts as lost
     * @param localHandoffs    the most releases in a row handed on to waiters of this client (0: none, as with replica
     *                         confirmation, where every grant goes through Redis)
     */
    public record Settings(String clientId, long watchdogMs, long commandTimeoutMs, int localHandoffs) {
    }

    /**
     * @param commands       plain commands (no script)
     * @param scripts        the script runner ({@code EVALSHA}, by text after a lost reply)
     * @param wakeups        the one pub/sub hub: every wing's channels are subscribed once per client
     * @param publishCommand the scripts' publish command: {@code "publish"}, {@code "spublish"} or {@code "both"}
     * @param slot           the key-to-slot function (0 for every key outside a Cluster)
     * @param runs           the run ids of the servers: a key found gone on another run was lost, not deleted
     */
    public record Redis(RedisClusterAsyncCommands<String, String> commands, ScriptRunner scripts, WakeupHub wakeups,
                        String publishCommand, ToIntFunction<String> slot, ServerRuns runs) {
    }
}
