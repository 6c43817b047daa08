package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.RenewalSender;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Renews read holds of a read-write lock: one {@code rwlock_read_renew} call extends this client's per-hold timeout
 * keys of every due hold and then sets each touched hash's TTL to its longest live read hold. Holds of other clients
 * (crashed ones included) are never extended, so they expire on their own.
 */
public final class ReadHoldRenewal implements RenewalSender {
    private final ScriptRunner scripts;

    public ReadHoldRenewal(ScriptRunner scripts) {
        this.scripts = scripts;
    }

    @Override
    public CompletableFuture<List<Long>> renew(List<Hold> holds, long leaseMs) {
        String[] keys = new String[holds.size() * 2];
        String[] args = new String[holds.size() + 1];
        args[0] = Long.toString(leaseMs);
        for (int i = 0; i < holds.size(); i++) {
            Hold hold = holds.get(i);
            keys[2 * i] = hold.key();
            keys[2 * i + 1] = ReadWriteKeys.timeoutRoot(hold.key());
            args[i + 1] = hold.field();
        }
        CompletableFuture<List<Object>> reply = scripts.run(Scripts.RWLOCK_READ_RENEW, ScriptOutputType.MULTI, keys,
                args);
        return reply.thenApply(HashFieldRenewal::toLongs);
    }

    /** Each read acquisition has its own timeout key: the hold lasts as long as the longest of them. */
    @Override
    public boolean expiresPerAcquisition() {
        return true;
    }
}
