package io.dlock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Validates lock names and derives the Redis names that belong to a lock, exactly as Redisson derives them
 * (docs/protocol.md §1.1, §8): {@code prefix:{NAME}}, or {@code prefix:NAME} when NAME already contains a
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

    /**
     * The name rule of every kind that derives auxiliary keys from its name (the fair lock's queue and timeouts, the
     * read-write lock's timeout keys and writer marks, the leased semaphore's permit table {@code {NAME}:timeout}):
     * refuses a name that is one whole hash tag, {@code {x}} (with no other brace): Redisson's rule gives it the same
     * auxiliary keys and channels as the name {@code x} ({@code prefix:{x}} both), so the two names would share them
     * (for a leased semaphore: one permit table under two counts, which grants twice). (A plain
     * or fenced lock named {@code {x}} only shares {@code x}'s unlock channel, which costs spurious wake-ups, and its
     * token counter, which still only grows: those kinds accept it.)
     *
     * @throws IllegalArgumentException naming the lock and the name to use instead
     */
    public static String requireOwnAuxiliaryKeys(String name, String kind) {
        requireValid(name);
        if (name.length() > 2 && name.charAt(0) == '{' && name.charAt(name.length() - 1) == '}'
                && name.indexOf('{', 1) < 0 && name.indexOf('}') == name.length() - 1) {
            throw new IllegalArgumentException("name '" + name + "' cannot be used for a " + kind + ": it is a whole "
                    + "hash tag, so its queue, channel and other keys are those of the name '"
                    + name.substring(1, name.length() - 1) + "' (Redisson derives them the same way); use '"
                    + name.substring(1, name.length() - 1) + "', which hashes to the same Cluster slot");
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

    /**
     * The lock names whose {@link #lockChannel} is {@code channel}: none for another channel, one for
     * {@code redisson_lock__channel:a{b}c}, and two for {@code redisson_lock__channel:{x}} ({@code x} and
     * {@code {x}} share it).
     */
    public static List<String> namesOfLockChannel(String channel) {
        return namesOfChannel(LOCK_CHANNEL_PREFIX, channel);
    }

    /**
     * The object names whose channel {@link #prefixed prefixed} by {@code channelPrefix} is {@code channel}, as
     * {@link #namesOfLockChannel} does for the lock channel (e.g. {@code redisson_rwlock} for read-write locks).
     */
    public static List<String> namesOfChannel(String channelPrefix, String channel) {
        String prefix = channelPrefix + ":";
        if (channel == null || !channel.startsWith(prefix)) {
            return List.of();
        }
        String rest = channel.substring(prefix.length());
        List<String> names = new ArrayList<>(2);
        if (rest.length() > 2 && rest.startsWith("{") && rest.endsWith("}")) {
            String inner = rest.substring(1, rest.length() - 1);
            if (inner.indexOf('{') < 0) {
                names.add(inner);
            }
        }
        if (rest.indexOf('{') >= 0 && prefixed(channelPrefix, rest).equals(channel)) {
            names.add(rest);
        }
        return names;
    }

    /** The hash field of one owner: {@code <client id>:<owner id>}. */
    public static String ownerField(String clientId, long ownerId) {
        return clientId + ":" + ownerId;
    }
}
