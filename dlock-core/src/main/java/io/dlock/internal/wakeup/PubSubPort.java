package io.dlock.internal.wakeup;

import java.util.concurrent.CompletableFuture;

/** Subscribes the client's pub/sub connection to channels. Calls are issued in order and never block. */
public interface PubSubPort {

    /** @return completes when Redis confirmed the subscription */
    CompletableFuture<Void> subscribe(String channel);

    CompletableFuture<Void> unsubscribe(String channel);

    /**
     * @return whether the pub/sub connection is to the very server that runs the scripts, and only to it (a
     *         standalone Redis): a script's message then reaches it in the order that server ran commands, so a
     *         message handled after a {@code SUBSCRIBE}'s answer was published after that {@code SUBSCRIBE} ran.
     *         False where a message may take another path (a Cluster's bus, a Sentinel-managed pub/sub connection
     *         that may still be on a demoted master fed by replication): then nothing may be concluded from that order
     */
    default boolean sameServerAsScripts() {
        return false;
    }
}
