package io.dlock.reactor;

import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;

import java.time.Duration;
import java.util.List;

/**
 * Who listens on an object's channels, as the server says ({@code PUBSUB CHANNELS}, {@code PUBSUB NUMSUB}): lets a
 * test wait until a waiter has really subscribed (and so waits on a message) instead of sleeping a guessed time. The
 * channels of every kind contain the object's name in braces ({@code redisson_lock__channel:{NAME}},
 * {@code redisson_sc:{NAME}}) or after {@code __} (the latch's {@code redisson_countdownlatch__channel__{NAME}}); the
 * family's {@code dlock-it} support class of the same name does this for every topology.
 */
final class Subscribers {
    private static final Duration SETTLE = Duration.ofSeconds(10);

    private Subscribers() {
    }

    /** @return how many subscriptions the server counts on the channels of {@code name} (standalone server) */
    static long count(RedisServer redis, String name) {
        long total = 0;
        for (Object channel : (List<?>) redis.command(SETTLE, "PUBSUB", "CHANNELS", "*" + name + "*")) {
            String listened = String.valueOf(channel);
            if (listened.contains("{" + name + "}") || listened.endsWith("__" + name)) {
                List<?> reply = (List<?>) redis.command(SETTLE, "PUBSUB", "NUMSUB", listened);
                total += Long.parseLong(String.valueOf(reply.get(1)));
            }
        }
        return total;
    }

    /**
     * Waits until more than {@code before} subscriptions listen on the channels of {@code name}: a waiter subscribed
     * since {@code before} was counted.
     */
    static void awaitMoreThan(RedisServer redis, String name, long before) {
        Await.until(SETTLE, () -> count(redis, name) > before,
                () -> "expected more than " + before + " subscription(s) to the channels of " + name + ", found "
                        + count(redis, name));
    }
}
