package io.dlock.internal.wakeup;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A pub/sub port for unit tests of what decides on subscriptions (no Redis: nothing is sent): records each
 * {@code SUBSCRIBE <channel>} and {@code UNSUBSCRIBE <channel>} in order, and Redis "confirms" at once.
 */
public final class RecordingPubSubPort implements PubSubPort {
    private final List<String> commands = new CopyOnWriteArrayList<>();

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        commands.add("SUBSCRIBE " + channel);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        commands.add("UNSUBSCRIBE " + channel);
        return CompletableFuture.completedFuture(null);
    }

    /** @return the commands so far, in order (a live view) */
    public List<String> commands() {
        return commands;
    }
}
