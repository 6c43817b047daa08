package io.dlock.internal.latch;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LatchInfo;
import io.dlock.NotALockException;
import io.dlock.internal.LockNames;
import io.dlock.internal.parts.ClientParts;

import java.util.concurrent.CompletableFuture;

/**
 * The latch wing of one client: its parts ({@link LatchParts}), the groups of the latches being awaited
 * ({@link LatchGroups}), and the entries the client calls: a latch by name, a snapshot, a pub/sub message. Latches
 * themselves hold nothing but their protocol (name and channel). Thread-safe.
 */
public final class LatchServices {
    private final LatchParts parts;
    private final LatchGroups groups;

    /** @param parts the client's shared parts; an awaiter re-checks at least every third of the watchdog timeout */
    public LatchServices(ClientParts parts) {
        this.parts = LatchParts.of(parts);
        this.groups = new LatchGroups(this.parts);
    }

    /**
     * @return the latch {@code name}; cheap, no round trip
     * @throws NullPointerException     when {@code name} is null
     * @throws IllegalArgumentException when it is blank
     */
    public DistributedCountDownLatch latch(String name) {
        return new RedisCountDownLatch(parts, protocol(name), groups);
    }

    /**
     * A snapshot of the latch {@code name} in one round trip ({@code latch_state}, read only), completed on Lettuce's
     * thread.
     *
     * @return fails with {@link NotALockException} when the key is not a latch count, else with a
     *         {@link io.dlock.LockException} naming the latch
     */
    public CompletableFuture<LatchInfo> inspect(String name) {
        return protocol(name).inspect().thenApply(state -> new LatchInfo(name, state.count(), state.pttl()));
    }

    /**
     * A pub/sub message arrived (on Lettuce's thread; never blocks): a latch's opening wakes its group, if any
     * ({@link LatchGroups#message}); other channels and messages are ignored.
     */
    public void message(String channel, String message) {
        groups.message(channel, message);
    }

    /** @return the latch awaits under way (for tests) */
    public int waitingCount() {
        return parts.acquisitions().waitingCount(LatchProtocol.KIND::equals);
    }

    private LatchProtocol protocol(String name) {
        LockNames.requireValid(name);
        return new LatchProtocol(parts, LatchChannel.of(name, parts.publishCommand(), parts.slot()));
    }
}
