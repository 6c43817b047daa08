package io.dlock.internal.lock;

import io.dlock.internal.LockNames;

/**
 * The Redis names of one read-write lock (docs/protocol.md §4.1), derived once from its name.
 *
 * @param name        the lock hash
 * @param timeoutRoot the root of the per-hold timeout keys {@code <root>:<reader field>:rwlock_timeout:<n>}:
 *                    {@code {NAME}}, or {@code NAME} when the name carries its own hash tag (Redisson's
 *                    {@code suffixName})
 * @param channel     {@code redisson_rwlock:{NAME}}, shared by readers and writers
 * @param waitingMarks {@code dlock_rwlock_writers:{NAME}}: dlock's waiting marks, of writers and of readers refused by
 *                     a write hold (the turns, {@link ReadWriteRedisLock}; never read by Redisson)
 */
record ReadWriteKeys(String name, String timeoutRoot, String channel, String waitingMarks) {
    static final String CHANNEL_PREFIX = "redisson_rwlock";
    static final String WRITER_MARKS_PREFIX = "dlock_rwlock_writers";
    /** Suffix of a writer's field: {@code <client id>:<owner id>:write}. */
    static final String WRITE_SUFFIX = ":write";

    static ReadWriteKeys of(String name) {
        return new ReadWriteKeys(name, timeoutRoot(name), LockNames.prefixed(CHANNEL_PREFIX, name),
                LockNames.prefixed(WRITER_MARKS_PREFIX, name));
    }

    /** {@code {NAME}}, or {@code NAME} when it already contains a brace. */
    static String timeoutRoot(String name) {
        return name.indexOf('{') >= 0 ? name : "{" + name + "}";
    }
}
