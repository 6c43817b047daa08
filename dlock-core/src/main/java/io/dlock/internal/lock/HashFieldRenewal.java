package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.RenewalSender;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Renews holds that are a field of a lock hash (plain, fair and write locks): one {@code lock_renew} call resets
 * the TTL of every hash whose owner field still exists (or, with a lease of 0, reads it back). A client that keeps
 * hold records ({@link HoldRecord}) sends each hold's record key too, which the script extends with its hold when it
 * is the owner's (a fair or write hold has none: the key is absent, and nothing is written).
 */
public final class HashFieldRenewal implements RenewalSender {
    private final ScriptRunner scripts;
    private final boolean holdRecords;

    public HashFieldRenewal(ScriptRunner scripts, boolean holdRecords) {
        this.scripts = scripts;
        this.holdRecords = holdRecords;
    }

    @Override
    public CompletableFuture<List<Long>> renew(List<Hold> holds, long leaseMs) {
        int n = holds.size();
        String[] keys = new String[holdRecords ? 2 * n : n];
        String[] args = new String[n + 1];
        args[0] = Long.toString(leaseMs);
        for (int i = 0; i < n; i++) {
            keys[i] = holds.get(i).key();
            args[i + 1] = holds.get(i).field();
            if (holdRecords) {
                keys[n + i] = HoldRecord.key(keys[i]);
            }
        }
        CompletableFuture<List<Object>> reply = scripts.run(Scripts.LOCK_RENEW, ScriptOutputType.MULTI, keys, args);
        return reply.thenApply(HashFieldRenewal::toLongs);
    }

    /** Reads a script's list of integers (anything else as 0: gone). */
    static List<Long> toLongs(List<Object> values) {
        List<Long> left = new ArrayList<>(values.size());
        for (Object v : values) {
            left.add(v instanceof Long n ? n : 0L);
        }
        return left;
    }
}
