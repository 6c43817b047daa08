package io.dlock.internal.latch;

/**
 * A latch's pub/sub channel and the publish command its scripts use.
 *
 * <p>The channel is always Redisson's, {@code redisson_countdownlatch__channel__{NAME}}, braces added whatever the name
 * holds, so that dlock and Redisson awaiters hear each other wherever Redisson works. On a Redis Cluster that channel
 * hashes to another slot than the key when the name carries its own hash tag ({@code {batch}:done} gives the channel
 * the tag <code>{batch</code>): a script may not {@code SPUBLISH} there (the channel is outside the script's slot), so
 * it publishes with plain {@code PUBLISH}, which is broadcast to every node and reaches dlock's awaiters through their
 * plain subscription. (Redisson itself cannot use such a latch on a Cluster: its scripts fail with CROSSSLOT.)
 *
 * @param name           the latch's name, its key
 * @param channel        its channel
 * @param publishCommand the command its scripts publish with: the client's, or {@code "publish"} when the channel
 *                       is on another slot
 */
record LatchChannel(String name, String channel, String publishCommand) {
    static final String PREFIX = "redisson_countdownlatch__channel__";

    /**
     * @param clientPublish the client's publish command ({@code publish}, or {@code both} on a sharded Cluster)
     * @param slot          the transport's key-to-slot function (0 for every key outside a Cluster)
     */
    static LatchChannel of(String name, String clientPublish, java.util.function.ToIntFunction<String> slot) {
        String channel = PREFIX + "{" + name + "}";
        String command = slot.applyAsInt(channel) == slot.applyAsInt(name) ? clientPublish : "publish";
        return new LatchChannel(name, channel, command);
    }
}
