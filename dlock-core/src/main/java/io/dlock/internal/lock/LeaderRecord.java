package io.dlock.internal.lock;

import io.dlock.ClientIdentity;
import io.dlock.internal.LockNames;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a leader election adds to its fenced lock (docs/protocol.md §14.4): the leader record
 * {@code dlock_leader:{NAME}} that the winning acquisition writes (who: the candidate's client identity and owner
 * field; the epoch; since when), renewals refresh and the last release deletes, the channel on which a win is
 * announced, and the candidate's <em>floor</em>: the highest epoch it has seen (its own wins, and every epoch it read
 * from the record), which every token it takes exceeds (§14.2). One per candidate; thread-safe.
 */
public final class LeaderRecord {
    /** Prefix of the record: {@code dlock_leader:{NAME}}. */
    static final String KEY_PREFIX = "dlock_leader";
    /** Prefix of the channel on which a win publishes its epoch: {@code dlock_leader__channel:{NAME}}. */
    static final String CHANNEL_PREFIX = "dlock_leader__channel";

    private final String key;
    private final String channel;
    private final ClientIdentity identity;
    private final AtomicLong highestSeen = new AtomicLong();

    /**
     * @param name     the election's (and its lock's) name, validated
     * @param identity the candidate's client
     */
    LeaderRecord(String name, ClientIdentity identity) {
        this.key = key(name);
        this.channel = channel(name);
        this.identity = identity;
    }

    /** @return {@code dlock_leader:{name}}, in the lock's slot */
    public static String key(String name) {
        return LockNames.prefixed(KEY_PREFIX, name);
    }

    /** @return {@code dlock_leader__channel:{name}}, in the lock's slot */
    public static String channel(String name) {
        return LockNames.prefixed(CHANNEL_PREFIX, name);
    }

    String key() {
        return key;
    }

    String channel() {
        return channel;
    }

    ClientIdentity identity() {
        return identity;
    }

    /** The candidate saw {@code epoch} (won it, or read it): its next token exceeds it. */
    public void seen(long epoch) {
        highestSeen.accumulateAndGet(epoch, Math::max);
    }

    /** @return the highest epoch seen, 0 before any */
    public long highestSeen() {
        return highestSeen.get();
    }
}
