package io.dlock.internal.semaphore;

import io.dlock.internal.LockNames;

/**
 * The Redis names of one semaphore, derived as Redisson derives them (docs/protocol.md §13): the count under the name
 * itself, the permit table of a leased semaphore under {@code {NAME}:timeout} ({@code NAME:timeout} when the name
 * has a hash tag already), the channel {@code redisson_sc:{NAME}} ({@code redisson_sc:NAME}). All three hash to the
 * name's slot on a Cluster.
 */
record SemaphoreKeys(String name, String tableKey, String channel) {

    static final String CHANNEL_PREFIX = "redisson_sc";

    static SemaphoreKeys of(String name) {
        String table = name.indexOf('{') >= 0 ? name + ":timeout" : "{" + name + "}:timeout";
        return new SemaphoreKeys(name, table, LockNames.prefixed(CHANNEL_PREFIX, name));
    }

    /** Prefix of a plain semaphore's grant marks ({@code sem_acquire}): dlock's own keys, on the count's slot. */
    static final String GRANT_MARK_PREFIX = "dlock_sem_grant";

    /** @return the count key and the grant mark of one acquire attempt ({@code attemptId}: fresh per attempt) */
    String[] countAndMark(String attemptId) {
        return new String[] {name, LockNames.prefixed(GRANT_MARK_PREFIX, name) + ":" + attemptId};
    }

    /** @return the count key alone */
    String[] count() {
        return new String[] {name};
    }

    /** @return the count key and the permit table */
    String[] both() {
        return new String[] {name, tableKey};
    }
}
