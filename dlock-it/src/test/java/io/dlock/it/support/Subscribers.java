package io.dlock.it.support;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

import io.dlock.redisprocess.Await;

/**
 * Who listens, as the server says ({@code PUBSUB}): lets a test wait until a waiter has really subscribed to its
 * object's channel (and so waits on a message) instead of sleeping a guessed time. The channels of every kind contain
 * the object's name: {@code redisson_lock__channel:{NAME}} (a fair waiter's {@code …:{NAME}:<owner>}),
 * {@code redisson_rwlock:{NAME}}, {@code redisson_sc:{NAME}}, {@code redisson_countdownlatch__channel__{NAME}}, without
 * the braces when the name has its own hash tag.
 */
public final class Subscribers {
    /** How long a subscription may take on a loaded machine. */
    public static final Duration SETTLE = Duration.ofSeconds(10);

    private Subscribers() {
    }

    /** @return whether {@code channel} is one of the channels of the object named {@code name} */
    public static boolean ofName(String channel, String name) {
        return channel.contains("{" + name + "}") || channel.endsWith(":" + name) || channel.endsWith("__" + name)
                || channel.contains(":" + name + ":");
    }

    /** @return the channels of {@code name} somebody listens to, over every node, plain and sharded */
    public static Set<String> channels(RawRedis raw, String name) {
        Set<String> of = new LinkedHashSet<>();
        for (String channel : raw.channels()) {
            if (ofName(channel, name)) {
                of.add(channel);
            }
        }
        return of;
    }

    /**
     * @return how many clients listen on the channels of {@code name}: the larger of the plain subscriptions
     *         ({@code PUBSUB NUMSUB}) and the sharded ones ({@code PUBSUB SHARDNUMSUB}), because on a Cluster with
     *         sharded pub/sub a dlock client listens both ways and Redisson with {@code SSUBSCRIBE} only
     */
    public static long count(RawRedis raw, String name) {
        long plain = 0;
        long sharded = 0;
        for (String channel : channels(raw, name)) {
            plain += raw.subscribers(channel);
            sharded += raw.shardSubscribers(channel);
        }
        return Math.max(plain, sharded);
    }

    /** Waits until exactly {@code n} clients listen on the channels of {@code name} (see {@link #count}). */
    public static void await(RawRedis raw, String name, long n) {
        Await.until(SETTLE, () -> count(raw, name) == n,
                () -> "expected " + n + " subscription(s) to the channels of " + name + ", found " + count(raw, name)
                        + " on " + channels(raw, name));
    }

    /**
     * As {@link #await(RawRedis, String, long)}, where the only way to the server is a call returning the output of
     * {@code PUBSUB CHANNELS} (e.g. a TLS-only server's own connection); counts channels, not subscribers.
     */
    public static void awaitChannels(Callable<List<String>> pubsubChannels, String name, long n) {
        Await.until(SETTLE, () -> pubsubChannels.call().stream().filter(c -> ofName(c, name)).count() == n,
                () -> "expected " + n + " listened channel(s) of " + name);
    }
}
