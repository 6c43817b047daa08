package io.dlock.internal.client;

import io.dlock.ConnectionFailedException;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.internal.Errors;
import io.dlock.internal.LockNames;
import io.dlock.internal.transport.Endpoint;
import io.dlock.internal.transport.RedisTransport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks at connect that the Redis user may publish and subscribe on the channels of every lock kind, so that a user
 * without channel permission (an ACL rule that forgot {@code &…}, or Redis 7's default {@code resetchannels}) is
 * refused at once, never discovered by a release that fails.
 *
 * <p>For the lock name {@link io.dlock.TuningSettings#probeLockName()}: {@code PUBLISH} (and {@code SPUBLISH} where the
 * scripts use it) of an empty message, which no lock of dlock or Redisson acts on, then {@code SUBSCRIBE} and
 * {@code UNSUBSCRIBE} on the pub/sub connection. Blocks for at most about twice the command timeout.
 */
final class ChannelPermissionProbe {
    private ChannelPermissionProbe() {
    }

    /** @return the channels of {@code name}: the lock's, a fair-lock waiter's, the read-write lock's */
    static List<String> channels(String name) {
        String lock = LockNames.lockChannel(name);
        return List.of(lock, lock + ":dlock-probe", LockNames.prefixed("redisson_rwlock", name));
    }

    /**
     * @throws ConnectionFailedException naming the channel and command refused ({@code PERMISSION_DENIED}), or the
     *                                   reason Redis failed otherwise
     */
    static void check(RedisTransport transport, LockClientConfig config, Endpoint endpoint) {
        List<String> channels = channels(config.tuning().probeLockName());
        long timeoutMs = config.commandTimeout().toMillis() + 1000;
        for (String channel : channels) {
            List<CompletableFuture<?>> publishes = new ArrayList<>();
            if (!transport.publishCommand().equals("spublish")) {
                publishes.add(transport.commands().publish(channel, "").toCompletableFuture());
            }
            if (!transport.publishCommand().equals("publish")) {
                publishes.add(transport.commands().spublish(channel, "").toCompletableFuture());
            }
            for (CompletableFuture<?> publish : publishes) {
                await(publish, timeoutMs, endpoint, channel, "publish on");
            }
        }
        for (String channel : channels) {
            await(transport.pubSub().subscribe(channel), timeoutMs, endpoint, channel, "subscribe to");
            await(transport.pubSub().unsubscribe(channel), timeoutMs, endpoint, channel, "unsubscribe from");
        }
    }

    private static void await(CompletableFuture<?> reply, long timeoutMs, Endpoint endpoint, String channel,
                              String action) {
        String where = endpoint.description();
        try {
            reply.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while connecting to Redis at " + where, e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = Errors.unwrap(e);
            String message = String.valueOf(cause.getMessage());
            if (message.startsWith("NOPERM")) {
                throw new ConnectionFailedException(ConnectionFailedException.Reason.PERMISSION_DENIED,
                        ConnectionFailedException.Reason.PERMISSION_DENIED.description() + ": the Redis user at "
                        + where + " may not " + action + " channel '" + channel + "' (" + endpoint.scrub(message)
                        + "): dlock publishes and subscribes on the channels of each lock (see README, \"Redis "
                        + "ACL\"); where the ACL allows only lock names with a prefix, set LockClientConfig "
                        + "tuning.probeLockName to a name with that prefix", cause);
            }
            throw ConnectFailures.failure(where, cause, endpoint.isTls(), action + " channel '" + channel + "' failed",
                    endpoint::scrub);
        }
    }
}
