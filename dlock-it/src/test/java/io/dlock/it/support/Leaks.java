package io.dlock.it.support;

import io.dlock.LockClient;
import io.dlock.internal.client.Diagnostics;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.redisprocess.Await;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leak checks: what a client still tracks (through its internal {@link Diagnostics}) and what is left on the server.
 */
public final class Leaks {

    /** Bound for state that is dropped asynchronously (unsubscribe, renewal cancellation). */
    public static final Duration SETTLE = Duration.ofSeconds(5);

    private Leaks() {
    }

    /** The client's internal counters. */
    public static Diagnostics diagnostics(LockClient client) {
        return ((RedisLockClient) client).diagnostics();
    }

    /** Waits until the client holds, renews, tracks, waits for and subscribes to nothing. */
    public static void assertClientIdle(LockClient client) {
        Await.untilAsserted(SETTLE, () -> {
            Diagnostics d = diagnostics(client);
            assertThat(d.renewedHolds()).as("renewedHolds of %s (%s)", client.getId(), d).isZero();
            assertThat(d.trackedHolds()).as("trackedHolds of %s (%s)", client.getId(), d).isZero();
            assertThat(d.waiters()).as("waiters of %s (%s)", client.getId(), d).isZero();
            assertThat(d.subscriptions()).as("subscriptions of %s (%s)", client.getId(), d).isZero();
        });
    }

    /** Waits until nobody is subscribed to any channel on the server. */
    public static void assertNoSubscriptions(RawRedis raw) {
        Await.untilAsserted(SETTLE, () -> assertThat(raw.channels()).as("PUBSUB CHANNELS").isEmpty());
    }

    /** Waits until {@code client} has {@code waiters} acquisitions waiting. */
    public static void awaitWaiters(LockClient client, int waiters) {
        Await.until(SETTLE, () -> diagnostics(client).waiters() == waiters,
                () -> "expected " + waiters + " waiter(s) in client " + client.getId() + ": " + diagnostics(client));
    }
}
