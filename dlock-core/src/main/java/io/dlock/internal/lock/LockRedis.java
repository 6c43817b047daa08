package io.dlock.internal.lock;

import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.wakeup.WakeupHub;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * How the locks of one client reach Redis: its commands, its script runner, its wake-up hub (pub/sub), replica
 * confirmation, and the two ways holds are renewed in batches. Immutable.
 *
 * @param commands         the client's Redis commands (plain reads of the common layout)
 * @param scripts          runs the kinds' scripts
 * @param wakeups          the client's subscriptions and the sleeps on them
 * @param replicaSync      confirms acquisitions on replicas ({@code syncReplicas}), or does nothing
 * @param hashFieldRenewal renews holds that are a field of a lock hash
 * @param readHoldRenewal  renews read holds of read-write locks (with their timeout keys)
 */
public record LockRedis(RedisClusterAsyncCommands<String, String> commands, ScriptRunner scripts, WakeupHub wakeups,
                        ReplicaSync replicaSync, HashFieldRenewal hashFieldRenewal, ReadHoldRenewal readHoldRenewal) {

    /**
     * @param holdRecords whether plain locks keep hold records ({@link io.dlock.LockClientConfig.Builder#holdDetails}),
     *                    which the renewals extend with their holds
     * @return the client's access to Redis, with the renewal senders over {@code scripts}
     */
    public static LockRedis of(RedisClusterAsyncCommands<String, String> commands, ScriptRunner scripts,
                               WakeupHub wakeups, ReplicaSync replicaSync, boolean holdRecords) {
        return new LockRedis(commands, scripts, wakeups, replicaSync, new HashFieldRenewal(scripts, holdRecords),
                new ReadHoldRenewal(scripts));
    }
}
