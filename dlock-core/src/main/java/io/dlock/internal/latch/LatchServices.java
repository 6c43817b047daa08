package io.dlock.internal.latch;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockEventListener;
import io.dlock.LatchInfo;
import io.dlock.LockException;
import io.dlock.NotALockException;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.internal.parts.ClientParts;
import io.lettuce.core.ScriptOutputType;
import io.dlock.internal.LockNames;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.transport.ServerRuns;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.dlock.internal.wakeup.WakeupHub;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * What every count-down latch of one client shares: the script runner, the wake-up hub (the same one the locks use,
 * so a latch's channel is subscribed once per client), the executor that completes users' futures, the waits under
 * way, which {@link #close()} fails, and the {@link LatchGroup} of each latch being awaited, through which all the
 * client's awaiters of that latch share their checks. Latches themselves hold nothing but their name and channel.
 *
 * <p>A latch name has at most one group at a time: created by the first {@link #join}, removed when its last member
 * leaves; both under the map's per-name lock, so a joiner never lands in a group that is being dropped.
 */
public final class LatchServices {

    final ScriptRunner scripts;
    /** Plain commands, for the state read of a check ({@link RedisCountDownLatch#state}): GET and PTTL, no script. */
    final RedisClusterAsyncCommands<String, String> commands;
    final WakeupHub wakeups;
    final Executor executor;
    final LongSupplier nanoTime;
    /** The run ids of the servers behind the latches: a latch found gone on another run was lost, not opened. */
    final ServerRuns runs;
    /** The longest an awaiter sleeps between two checks of the count, message or not (ms). */
    final long recheckMs;
    private final String publishCommand;
    private final ToIntFunction<String> slot;
    private final Map<String, LatchGroup> groups = new ConcurrentHashMap<>();
    /** The client's registry of what is in flight (the close rule), its sync waits and timer pauses. */
    final Acquisitions acquisitions;
    /** The sync waits of every latch call: they never spin ({@link SyncWaits#neverSpinning}). */
    final SyncWaits waits;
    /** The client's event listeners (one volatile read per event; a no-op while nobody listens). */
    final Supplier<LockEventListener> events;

    /** @param parts the client's shared parts; an awaiter re-checks at least every third of the watchdog timeout */
    public LatchServices(ClientParts parts) {
        this.acquisitions = parts.acquisitions();
        this.waits = acquisitions.waits().neverSpinning();
        this.events = acquisitions.events()::get;
        this.runs = parts.redis().runs();
        this.scripts = parts.redis().scripts();
        this.commands = parts.redis().commands();
        this.wakeups = parts.redis().wakeups();
        this.executor = acquisitions.executor();
        this.nanoTime = acquisitions::nanoTime;
        this.publishCommand = parts.redis().publishCommand();
        this.slot = parts.redis().slot();
        this.recheckMs = Math.max(1, parts.settings().watchdogMs() / 3);
    }

    /**
     * @return the latch {@code name}; cheap, no round trip
     * @throws NullPointerException     when {@code name} is null
     * @throws IllegalArgumentException when it is blank
     */
    public DistributedCountDownLatch latch(String name) {
        LockNames.requireValid(name);
        return new RedisCountDownLatch(this, LatchChannel.of(name, publishCommand, slot));
    }

    /**
     * A snapshot of the latch {@code name} in one round trip ({@code latch_state}, read only), completed on Lettuce's
     * thread.
     *
     * @return fails with {@link NotALockException} when the key is not a latch count, else with a
     *         {@link io.dlock.LockException} naming the latch
     */
    public CompletableFuture<LatchInfo> inspect(String name) {
        CompletableFuture<List<Object>> reply = Errors.call(() -> {
            acquisitions.checkOpen(RedisCountDownLatch.KIND, name);
            return scripts.run(LatchScripts.STATE, ScriptOutputType.MULTI, new String[]{name});
        });
        return reply.handle((state, error) -> {
            if (error != null) {
                throw Errors.toApi(error, RedisCountDownLatch.KIND, name, "inspect");
            }
            RedisCountDownLatch.State read = RedisCountDownLatch.State.of(state);
            return new LatchInfo(name, read.count(), read.pttl());
        });
    }

    boolean isClosed() {
        return acquisitions.isClosed();
    }

    /**
     * Adds {@code member} to the group of its latch, creating the group if none; the member rides the group's next
     * check, sending one unless a check it may ride is already due. Nothing when the member has ended already.
     */
    void join(LatchAwait member, RedisCountDownLatch latch) {
        LatchGroup[] joined = new LatchGroup[1];
        long[] check = new long[1];
        groups.compute(latch.getName(), (name, group) -> {
            if (member.result().isDone()) {
                return group; // ended before it joined (its leave found nothing to leave)
            }
            LatchGroup g = group != null ? group : new LatchGroup(this, latch);
            check[0] = g.add(member);
            joined[0] = g;
            return g;
        });
        if (check[0] > 0) {
            joined[0].send(check[0]);
        } else if (check[0] == LatchGroup.SUBSCRIBING_FIRST) {
            joined[0].checkOnceSubscribed();
        }
    }

    /** Removes {@code member} from its group; the last one to leave drops the group and its subscription. */
    void leave(LatchAwait member) {
        LatchGroup[] dropped = new LatchGroup[1];
        groups.computeIfPresent(member.name(), (name, group) -> {
            if (!group.remove(member)) {
                return group;
            }
            dropped[0] = group;
            return null;
        });
        if (dropped[0] != null) {
            dropped[0].release();
        }
    }

    /**
     * A pub/sub message arrived (on Lettuce's thread; never blocks): a {@code 0} on a latch's channel, which only an
     * opening publishes (a count-down to zero, a delete, an announced expiry), tells the latch's group, if any, that
     * the latch opened ({@link LatchGroup#zeroHeard}). Other channels and messages are ignored.
     */
    public void message(String channel, String message) {
        if (!"0".equals(message) || !channel.startsWith(LatchChannel.PREFIX + "{") || !channel.endsWith("}")) {
            return;
        }
        LatchGroup group = groups.get(channel.substring(LatchChannel.PREFIX.length() + 1, channel.length() - 1));
        if (group != null) {
            group.zeroHeard();
        }
    }

    /** @return awaits under way, and acquisitions of every kind (for tests) */
    public int waitingCount() {
        return acquisitions.waitingCount();
    }
}
