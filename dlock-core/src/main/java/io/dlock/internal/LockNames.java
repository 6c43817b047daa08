package io.dlock.internal;

import java.util.Objects;

/**
 * Validates lock names and derives the Redis names that belong to a lock, exactly as Redisson derives them
 * (redisson-protocol.md §1.1, §8): {@code prefix:{NAME}}, or {@code prefix:NAME} when NAME already contains a
 * brace, so that every key and channel of a lock hashes to the lock's own Cluster slot.
 */
public final class LockNames {
    /** Channel on which the reentrant (and fenced) lock announces a full release. */
    public static final String LOCK_CHANNEL_PREFIX = "redisson_lock__channel";

    private LockNames() {
    }

    /** @throws NullPointerException naming {@code name}; IllegalArgumentException when blank */
    public static String requireValid(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name is blank: '" + name + "'");
        }
        return name;
    }

    /** {@code prefix:{name}}, or {@code prefix:name} when the name carries its own hash tag. */
    public static String prefixed(String prefix, String name) {
        return name.indexOf('{') >= 0 ? prefix + ":" + name : prefix + ":{" + name + "}";
    }

    public static String lockChannel(String name) {
        return prefixed(LOCK_CHANNEL_PREFIX, name);
    }

    /** The hash field of one owner: {@code <client id>:<owner id>}. */
    public static String ownerField(String clientId, long ownerId) {
        return clientId + ":" + ownerId;
    }
}
