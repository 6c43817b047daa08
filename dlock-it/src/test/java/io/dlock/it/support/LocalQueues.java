package io.dlock.it.support;

import io.dlock.LockClient;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.redisprocess.Await;


/**
 * What a client knows of its own owners on its exclusive locks (the internal {@code LocalCohorts}): how many owners
 * wait inside the client behind another of its owners, and for how many lock names it keeps such knowledge. Tests
 * use it to know that a waiter is queued before the next one starts, and to check that nothing is left behind.
 *
 * <p>Read through {@link RedisLockClient#localWaiters} and {@link RedisLockClient#diagnostics()}.
 */
public final class LocalQueues {

    private LocalQueues() {
    }

    /** @return how many owners of {@code client} wait locally for {@code lockName} (0 when nobody does) */
    public static int queued(LockClient client, String lockName) {
        return ((RedisLockClient) client).localWaiters(lockName);
    }

    /** @return for how many lock names {@code client} keeps local knowledge (0 when idle) */
    public static int cohortCount(LockClient client) {
        return ((RedisLockClient) client).diagnostics().localCohorts();
    }

    /** Waits until {@code count} owners of {@code client} wait locally for {@code lockName}. */
    public static void awaitQueued(LockClient client, String lockName, int count) {
        Await.until(Leaks.SETTLE, () -> queued(client, lockName) == count,
                () -> "expected " + count + " local waiter(s) on " + lockName + ", found " + queued(client, lockName)
                        + "; " + Leaks.diagnostics(client));
    }

    /** Waits until {@code client} keeps no local knowledge of any lock. */
    public static void assertNoCohorts(LockClient client) {
        Await.until(Leaks.SETTLE, () -> cohortCount(client) == 0,
                () -> "local cohorts left in client " + client.getId() + ": " + cohortCount(client));
    }
}
