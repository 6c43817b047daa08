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

    /**
     * The part of a plain semaphore's grant mark ({@code sem_acquire}) after the name: dlock's own keys, derived as the
     * permit table is ({@code {NAME}:dlock_grant:<id>}, {@code NAME:dlock_grant:<id>} when the name has a hash tag),
     * so they share the count's slot and an ACL rule that covers the semaphore's keys covers them.
     */
    static final String GRANT_MARK_INFIX = ":dlock_grant:";

    /** @return the count key and the grant mark of one acquire attempt ({@code attemptId}: fresh per attempt) */
    String[] countAndMark(String attemptId) {
        String base = name.indexOf('{') >= 0 ? name : "{" + name + "}";
        return new String[] {name, base + GRANT_MARK_INFIX + attemptId};
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
