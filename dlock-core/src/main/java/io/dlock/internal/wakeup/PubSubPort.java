package io.dlock.internal.wakeup;

import java.util.concurrent.CompletableFuture;

/** Subscribes the client's pub/sub connection to channels. Calls are issued in order and never block. */
public interface PubSubPort {

    /** @return completes when Redis confirmed the subscription */
    CompletableFuture<Void> subscribe(String channel);

    CompletableFuture<Void> unsubscribe(String channel);
}
