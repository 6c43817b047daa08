package io.dlock.internal.semaphore;

import io.dlock.SemaphoreInfo;
import io.dlock.internal.script.LuaScript;
import io.dlock.internal.script.ScriptRunner;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a {@link SemaphoreInfo} in one round trip (the read-only {@code sem_inspect} script, docs/protocol.md §13.3):
 * the count, its TTL, the server's clock and the permit table with hex ids. The permits' remaining leases are worked
 * out here against the server's clock read in the same call, so no client clock enters them.
 */
public final class SemaphoreInspector {
    static final LuaScript SEM_INSPECT = LuaScript.load("sem_inspect");
    /** The score with which Redisson marks a permit without a lease (never reclaimed). */
    static final long NO_LEASE_SCORE = 922337203685477L;
    static final String KIND = "semaphore";

    private final ScriptRunner scripts;

    public SemaphoreInspector(ScriptRunner scripts) {
        this.scripts = scripts;
    }

    /**
     * @return the snapshot; fails with {@link io.dlock.NotALockException} for a key of the wrong type, else with a
     *         {@link io.dlock.LockException} naming the semaphore
     */
    public CompletableFuture<SemaphoreInfo> inspect(String name) {
        SemaphoreKeys keys = SemaphoreKeys.of(name);
        CompletableFuture<List<Object>> reply;
        try {
            reply = scripts.run(SEM_INSPECT, ScriptOutputType.MULTI, keys.both());
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((values, error) -> {
            if (error != null) {
                throw io.dlock.internal.Errors.toApi(error, KIND, name, "inspect");
            }
            return parse(name, values);
        });
    }

    @SuppressWarnings("unchecked")
    static SemaphoreInfo parse(String name, List<Object> values) {
        long count = (Long) values.get(0);
        long ttl = (Long) values.get(1);
        long now = (Long) values.get(2);
        List<Object> table = (List<Object>) values.get(3);
        List<SemaphoreInfo.PermitLease> live = new ArrayList<>();
        int expired = 0;
        for (int i = 0; i + 1 < table.size(); i += 2) {
            String id = String.valueOf(table.get(i));
            long score = (long) Double.parseDouble(String.valueOf(table.get(i + 1)));
            if (score >= NO_LEASE_SCORE) {
                live.add(new SemaphoreInfo.PermitLease(id, -1));
            } else if (score <= now) {
                expired++; // available: the next acquisition that needs it reclaims it (score <= now, as reclaim_expired judges)
            } else {
                live.add(new SemaphoreInfo.PermitLease(id, score - now));
            }
        }
        return new SemaphoreInfo(name, count + expired, ttl, live, expired);
    }
}
