package io.dlock.internal.lock;

import io.dlock.LockInfo;
import io.dlock.internal.LockNames;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A plain lock's hold record, {@code dlock_hold:{NAME}} (docs/protocol.md §6.2): a dlock-only hash in the lock's slot
 * naming the hold's holder (its owner field), since when it holds (the server's clock) and the name of the thread
 * that asked. Written, kept and deleted by the plain lock's own scripts (fragment {@code hold_record}) for clients
 * built with {@link io.dlock.LockClientConfig.Builder#holdDetails}; read by {@code inspect}.
 */
public final class HoldRecord {
    /** Prefix of the record: {@code dlock_hold:{NAME}}. */
    static final String KEY_PREFIX = "dlock_hold";

    private HoldRecord() {
    }

    /** @return {@code dlock_hold:{name}}, in the lock's slot */
    public static String key(String name) {
        return LockNames.prefixed(KEY_PREFIX, name);
    }

    /**
     * @param fields the record's fields as read ({@code HGETALL}; empty when there is none)
     * @param holder the owner field {@code <client id>:<owner id>} of a current holder of the lock
     * @return the details the record gives of {@code holder}'s hold: empty unless it names that holder and has a
     *         numeric {@code since}
     */
    public static Optional<LockInfo.HoldDetails> details(Map<String, String> fields, String holder) {
        if (!holder.equals(fields.get("holder"))) {
            return Optional.empty();
        }
        try {
            long since = Long.parseLong(fields.getOrDefault("since", ""));
            return Optional.of(new LockInfo.HoldDetails(Instant.ofEpochMilli(since),
                    fields.getOrDefault("thread", "")));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
