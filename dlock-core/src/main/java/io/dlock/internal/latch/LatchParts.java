package io.dlock.internal.latch;

import io.dlock.LockEventListener;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.internal.parts.ClientParts;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.transport.ServerRuns;
import io.dlock.internal.wakeup.WakeupHub;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The client's parts that the latch wing uses, named once: every class of {@code latch/} takes these, never another
 * class of the wing that would call it back.
 *
 * @param acquisitions   the front door and the close rule; its clock, executor and outage pauses
 * @param waits          the sync waits of every latch call: they never spin ({@link SyncWaits#neverSpinning})
 * @param events         the client's event listeners (one volatile read per event)
 * @param scripts        the script runner
 * @param commands       plain commands, for the state read of a check: GET and PTTL, no script
 * @param wakeups        the wake-up hub (the locks' own: a latch's channel is subscribed once per client)
 * @param runs           the run ids of the servers behind the latches: a latch gone on another run was lost
 * @param publishCommand the client's publish command
 * @param slot           the key-to-slot function (0 for every key outside a Cluster)
 * @param recheckMs      the longest an awaiter sleeps between two checks of the count, message or not (ms)
 */
record LatchParts(Acquisitions acquisitions, SyncWaits waits, Supplier<LockEventListener> events,
                  ScriptRunner scripts, RedisClusterAsyncCommands<String, String> commands, WakeupHub wakeups,
                  ServerRuns runs, String publishCommand, ToIntFunction<String> slot, long recheckMs) {

    /** @param parts the client's shared parts; an awaiter re-checks at least every third of the watchdog timeout */
    static LatchParts of(ClientParts parts) {
        Acquisitions acquisitions = parts.acquisitions();
        return new LatchParts(acquisitions, acquisitions.waits().neverSpinning(), acquisitions.events()::get,
                parts.redis().scripts(), parts.redis().commands(), parts.redis().wakeups(), parts.redis().runs(),
                parts.redis().publishCommand(), parts.redis().slot(),
                Math.max(1, parts.settings().watchdogMs() / 3));
    }

    /** @return the client's monotonic clock (ns) */
    long nanoTime() {
        return acquisitions.nanoTime();
    }
}
