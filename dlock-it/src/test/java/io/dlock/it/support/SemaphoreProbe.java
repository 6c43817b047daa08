package io.dlock.it.support;

import io.dlock.LockClient;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.redisprocess.Await;

import static org.assertj.core.api.Assertions.assertThat;

/** What a client's semaphores are doing: waiting acquisitions and leased permits held (white-box). */
public final class SemaphoreProbe {
    private SemaphoreProbe() {
    }

    public static int waiters(LockClient client) {
        return ((RedisLockClient) client).semaphoreActivity()[0];
    }

    public static int heldPermits(LockClient client) {
        return ((RedisLockClient) client).semaphoreActivity()[1];
    }

    /** Waits until {@code client} has {@code n} semaphore acquisitions waiting. */
    public static void awaitWaiters(LockClient client, int n) {
        Await.until(Leaks.SETTLE, () -> waiters(client) == n,
                () -> "expected " + n + " semaphore waiter(s) in " + client.getId() + ", found " + waiters(client));
    }

    /** Waits until {@code client} waits for no semaphore, holds no leased permit and subscribes to nothing. */
    public static void assertIdle(LockClient client) {
        Await.untilAsserted(Leaks.SETTLE, () -> {
            assertThat(waiters(client)).as("semaphore waiters").isZero();
            assertThat(heldPermits(client)).as("leased permits held").isZero();
            assertThat(Leaks.diagnostics(client).subscriptions()).as("subscriptions").isZero();
        });
    }
}
