package io.dlock.internal.lock;

import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.script.ScriptCall;
import io.dlock.internal.script.Scripts;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The protocol of the reentrant fair lock ({@link io.dlock.LockKind#FAIR}): granted in FIFO order among waiters of every client, wire-compatible with Redisson's
 * {@code RedissonFairLock}, so that Redisson and dlock waiters of one name queue in one line and wake each other.
 *
 * <h2>Key layout (docs/protocol.md §3.1)</h2>
 * <ul>
 *   <li>{@code NAME}: the same hash as the plain lock, {@code <client id>:<owner id>} → hold count, always with a
 *       TTL (the lease, or the watchdog timeout renewed every third of it).</li>
 *   <li>{@code redisson_lock_queue:{NAME}}: a list of the owner fields of the waiters, first in line first.</li>
 *   <li>{@code redisson_lock_timeout:{NAME}}: a sorted set, owner field → deadline in epoch ms. A waiter that is
 *       first in line after its deadline counts as gone and is dropped by the next script that looks (the
 *       <em>stale-head cleanup</em>, which every script of this lock runs first, as Redisson's do). Only the head's
 *       deadline is ever checked.</li>
 *   <li>{@code redisson_lock__channel:{NAME}:<owner field>}: each waiter's own channel. The last release (and
 *       {@code forceUnlock}) publishes {@code 0} on the channel of the first waiter in line only.</li>
 * </ul>
 * Queue and deadlines vanish with their last member, so nothing is left when nobody waits; and each queued attempt
 * keeps their TTL at least one slot past the latest deadline they hold (raised, never lowered), so that waiters
 * that died in line cannot leave them behind forever.
 * Times in the deadlines are client clocks (epoch ms in ARGV), as in Redisson: clients whose clocks disagree by
 * more than a fraction of a slot judge each other's waiters early or late.
 *
 * <h2>Slots and deadline arithmetic</h2>
 * Redisson gives each waiter a <em>slot</em> (its wait time for a timed {@code tryLock}, else
 * {@code fairLockWaitTimeout}) and keeps each deadline at "the slots of every waiter ahead, plus its own": a waiter
 * enqueues with the deadline of the last one in line plus its slot; whoever takes the lock from the head of the queue
 * moves every remaining deadline earlier by its own slot; a waiter that gives up moves the deadlines of those behind
 * it earlier by its slot. dlock keeps that arithmetic, with two choices of its own:
 * <ul>
 *   <li><b>One slot for every dlock waiter:</b> {@code S = fairLockWaitTimeout}, also for a timed {@code tryLock}.
 *       With per-call slots, a {@code lock()} waiter that acquires (slot 5 min) moves a {@code tryLock(10 s)} waiter
 *       behind it 5 minutes earlier, far into the past, and that live waiter is dropped once it is first in line
 *       (this happens between Redisson's own waiters). A timed waiter does not need a longer slot anyway: it leaves
 *       the queue through the give-up script when its wait ends.</li>
 *   <li><b>Every attempt raises the caller's own deadline</b> to at least {@code now + (waiters ahead + 1) × S}
 *       (never lowers it). The first attempt enqueues at the tail with the deadline Redisson's enqueue gives (the
 *       last waiter's deadline, or the lock's PTTL when nobody waits, plus {@code S}) if that is later. Each waiter
 *       ahead that leaves by acquiring or giving up takes one slot off, so the deadline of a live waiter stays at
 *       least {@code S} after its last attempt until it is first in line, where nobody moves it any more.</li>
 * </ul>
 * Redisson waiters that enqueue behind a dlock waiter compute their deadline from it ({@code deadline(last) + their
 * slot}), exactly as they do behind a Redisson waiter, and since dlock's deadline is never below what Redisson's
 * arithmetic would give, they are never worse off; Redisson's scripts read dlock's deadlines as their own. The
 * arithmetic assumes that every client of one name uses the same {@code fairLockWaitTimeout} (as Redisson's does).
 * (Redisson's {@code tryLock(wait, unit)} with a watchdog lease sends {@code wait} as milliseconds whatever the
 * unit, so {@code tryLock(30, SECONDS)} gets a 30 ms slot there and relies on the slack of the deadlines ahead.)
 *
 * <h2>What differs from Redisson, and why it stays compatible</h2>
 * <ul>
 *   <li><b>A live waiter keeps its place.</b> Redisson writes a waiter's deadline once, when it enqueues, and a
 *       {@code lock()} waiter that waits longer than its slots is dropped and re-enqueued at the tail. A dlock waiter
 *       re-attempts at least every {@code S / 3} (its sleep is capped so), and each attempt raises its deadline as
 *       above, so it is never first in line with a deadline in the past while it lives. Only the caller's own member
 *       of the sorted set is written.</li>
 *   <li><b>No busy polling.</b> Redisson's attempt answers {@code 0} to a waiter behind the head while the lock is
 *       free (the head has been woken and is on its way), so that waiter polls Redis in a loop. dlock answers the
 *       time until the head's deadline, when a head that never comes is dropped; while the lock is held, the
 *       lock's PTTL (as Redisson). Every sleep is also capped at {@code S / 3}. The first in line is woken by the
 *       release's message on its own channel; the others sleep until their bound, which is where a turn that came
 *       silently (a holder's lease ran out, a head died) is noticed.</li>
 *   <li><b>Leaving is immediate.</b> A timed {@code tryLock} that gives up, an interrupted {@code lockInterruptibly},
 *       a cancelled or failed async acquisition all run the give-up script (Redisson's {@code acquireFailed}
 *       arithmetic); when the leaver was first in line and the lock is free, it also wakes the new head, which
 *       Redisson's does not. A single attempt ({@code tryLock()}) never enqueues and never runs it.</li>
 *   <li><b>{@code unlock()} by a non-holder throws {@link IllegalMonitorStateException}</b>, also when the lock is
 *       free (Redisson returns silently there). It still wakes the head in that case, as Redisson does.</li>
 * </ul>
 *
 * <h2>What a crashed waiter costs those behind it</h2>
 * A waiter that dies (or whose give-up never reaches Redis) stays in the queue until it is first in line with its
 * deadline passed. A release before that deadline wakes the dead head only; the next waiter notices within
 * {@code S / 3} (its longest sleep), then sleeps exactly until the dead head's deadline, drops it and takes the lock.
 * A release after the deadline drops the dead head itself and wakes the next one at once. Waiters further back are
 * not delayed further. The dead waiter's last attempt left a deadline of at most the later of
 * {@code t + (k + 1) × S} ({@code t} that attempt, {@code k} waiters ahead) and the deadline Redisson's enqueue
 * arithmetic gave it; each waiter ahead that leaves by acquiring or giving up takes a slot off.
 * <b>Bound:</b> the next live waiter is served at most {@code fairLockWaitTimeout} after the dead waiter's last
 * attempt, hence after its death (plus up to {@code S / 3} when the lock was released shortly before that), or, if
 * later, when a Redisson waiter in the same place would have counted as gone (the holder's remaining lease when the
 * line formed, plus one slot). It grows by one slot for each waiter ahead of the dead one that was itself dropped as
 * stale, and by the difference of slots for each waiter with a shorter slot (a Redisson {@code tryLock}) that
 * acquired ahead of it.
 *
 * <h2>Costs</h2>
 * An uncontended acquire + release is two {@code EVALSHA}s, as for the plain lock (the cleanup adds one
 * {@code LINDEX} inside each). A contended acquisition costs an enqueuing attempt, one {@code SUBSCRIBE} to the
 * waiter's own channel and one attempt once subscribed, then one attempt per wake-up or bound, and an
 * {@code UNSUBSCRIBE}; acquiring from the queue also runs one {@code ZINCRBY} per remaining waiter (Redisson's
 * arithmetic). Deadlines are found with {@code LPOS} (Redis 6.0.6 or later).
 *
 * <h2>Lost replies</h2>
 * As for the plain lock ({@link io.dlock.internal.acquire.PendingAcquisitions}): the acquire and release scripts get the hold count the
 * client knows, so a retry adopts the hold an attempt without a reply took instead of counting on top of it, the
 * owner's last unlock always frees the lock, and a wait that gives up after such an attempt drops what it may have
 * left (after leaving the queue).
 *
 * <h2>Limits</h2>
 * A Redisson client with a longer {@code fairLockWaitTimeout}, or a Redisson {@code tryLock} with a wait longer than
 * dlock's slot, moves the deadlines behind it by more than dlock accounts for when it acquires ahead of a dlock
 * waiter, which may then be dropped as stale and re-enqueue at the tail. Redisson's scripts never set a TTL on the
 * queue keys: a Redisson waiter that enqueues behind the latest deadline with a slot longer than dlock's, or several
 * that enqueue one behind the other while no dlock waiter attempts, may have deadlines past the TTL the last dlock
 * attempt set; if the keys then expire, those waiters enqueue again at their next attempt (in the order of their
 * attempts). Exclusion is never affected, only their order. Mixing {@code getLock} and
 * {@code getFairLock} on one name breaks fairness (the plain lock ignores the queue), as in Redisson.
 */
final class FairProtocol implements LockProtocol {
    /** Prefix of the waiters' list: {@code redisson_lock_queue:{NAME}}. */
    static final String QUEUE_PREFIX = "redisson_lock_queue";
    /** Prefix of the waiters' deadlines: {@code redisson_lock_timeout:{NAME}}. */
    static final String TIMEOUT_PREFIX = "redisson_lock_timeout";
    /** Longest slot written to Redis (about three years): keeps epoch-ms arithmetic in Lua exact. */
    static final long MAX_SLOT_MS = 100_000_000_000L;

    private final LockContext context;
    private final String[] keys;
    private final String channelPrefix;
    private final String slot;
    private final String maxSleep;

    FairProtocol(LockContext context) {
        this.context = context;
        String name = context.name();
        this.keys = new String[] {name, queueKey(name), timeoutKey(name)};
        this.channelPrefix = LockNames.lockChannel(name);
        long slotMs = slotMillis(context.fairLockWaitMs());
        this.slot = Long.toString(slotMs);
        this.maxSleep = Long.toString(maxSleepMillis(slotMs));
    }

    /** @return {@code redisson_lock_queue:{name}} */
    static String queueKey(String name) {
        return LockNames.prefixed(QUEUE_PREFIX, name);
    }

    /** @return {@code redisson_lock_timeout:{name}} */
    static String timeoutKey(String name) {
        return LockNames.prefixed(TIMEOUT_PREFIX, name);
    }

    /** @return the channel of one waiter: {@code redisson_lock__channel:{name}:<owner field>} */
    static String waiterChannel(String name, String ownerField) {
        return LockNames.lockChannel(name) + ":" + ownerField;
    }

    /** @return the slot of every waiter of this client: its fair-lock wait timeout, within what Lua keeps exact */
    static long slotMillis(long fairLockWaitMs) {
        return Math.max(1, Math.min(fairLockWaitMs, MAX_SLOT_MS));
    }

    /** @return the longest sleep between two attempts of a waiter with this slot: a third of it */
    static long maxSleepMillis(long slotMs) {
        return Math.max(1, slotMs / 3);
    }

    @Override
    public LockContext context() {
        return context;
    }

    /** A waiter that may queue keeps its place in the Redis queue until a grant or a give-up. */
    @Override
    public Mark waitingMark() {
        return Mark.FAIR_QUEUE_PLACE;
    }

    @Override
    public ScriptCall acquire(AcquireRequest request, long knownCount) {
        return ScriptCall.integer(Scripts.FAIR_ACQUIRE, keys, Long.toString(request.effectiveLeaseMs()),
                context.ownerField(request.ownerId()), slot, Long.toString(context.epochMillis()),
                request.waits() ? "1" : "0", maxSleep, Long.toString(knownCount), request.held());
    }

    /**
     * Owners of this client wait behind a local holder inside the client once they have their place in the Redis
     * queue, and ask Redis again at least every {@code S / 3}, as a waiter sleeping on its channel does, so that their
     * deadline stays fresh. The release hands the lock to whichever of them Redis has first in line
     * ({@link #handOff}).
     */
    @Override
    public LocalWait localWait() {
        return new LocalWait(false, TimeUnit.MILLISECONDS.toNanos(Long.parseLong(maxSleep)), true);
    }

    /** Leaves the queue (and wakes the next waiter when it was first). */
    @Override
    public ScriptCall withdrawMark(long ownerId) {
        return ScriptCall.integer(Scripts.FAIR_GIVE_UP, keys, context.ownerField(ownerId), slot,
                Long.toString(context.epochMillis()), context.publishCommand(), channelPrefix);
    }

    @Override
    public ScriptCall dropUnknown(long ownerId, long leaseMs, long knownCount) {
        return ScriptCall.integer(Scripts.FAIR_RELEASE, keys, context.ownerField(ownerId), Long.toString(leaseMs),
                Long.toString(context.epochMillis()), context.publishCommand(), channelPrefix,
                Long.toString(knownCount), "drop-unknown").byText();
    }

    @Override
    public ScriptCall release(long ownerId, Hold hold, String countAfter) {
        return ScriptCall.integer(Scripts.FAIR_RELEASE, keys, context.ownerField(ownerId),
                Long.toString(context.leaseAfterRelease(hold)), Long.toString(context.epochMillis()),
                context.publishCommand(), channelPrefix, countAfter, "release");
    }

    /**
     * When the owner's last release finds owners of this client waiting behind it locally, the same script call gives
     * the lock to the first waiter in the Redis queue if that is one of them (a local hand-off that leaves exactly what
     * that waiter's own acquisition would have left, and publishes nothing); if the first in line belongs to another
     * client, it is an ordinary release.
     */
    @Override
    public HandOff handOff(long ownerId, Hold hold, String countAfter) {
        String field = context.ownerField(ownerId);
        String lease = Long.toString(context.leaseAfterRelease(hold));
        return new HandOff() {
            @Override
            public LocalLine.Pick pick() {
                return LocalLine.Pick.EVERY;
            }

            @Override
            public HandOff.Receiver receiver(LocalWaiter waiter, long leaseMs) {
                return new HandOff.Receiver(holdField(waiter.ownerId), leaseMs, FairProtocol.this);
            }

            /** Releases with the release's arguments (lease, count) plus the receivers, in the cohort's order. */
            @Override
            public ScriptCall call(List<HandOff.Receiver> receivers) {
                List<String> args = new ArrayList<>(List.of(field, lease, Long.toString(context.epochMillis()),
                        context.publishCommand(), channelPrefix, countAfter, "release", slot));
                for (HandOff.Receiver receiver : receivers) {
                    args.add(receiver.field());
                    args.add(Long.toString(receiver.leaseMs()));
                }
                return ScriptCall.integer(Scripts.FAIR_RELEASE, keys, args.toArray(new String[0]));
            }

            @Override
            public HandOffRelease.Outcome read(Long reply) {
                return reply != null && reply >= 2L ? new HandOffRelease.Outcome.MovedTo((int) (reply - 2))
                        : new HandOffRelease.Outcome.Released(reply);
            }
        };
    }

    @Override
    public String wakeupChannel(long ownerId) {
        return channelPrefix + ":" + context.ownerField(ownerId);
    }

    @Override
    public boolean channelPerOwner() {
        return true;
    }

    @Override
    public ScriptCall forceRelease() {
        return ScriptCall.integer(Scripts.FAIR_FORCE_RELEASE, keys, Long.toString(context.epochMillis()),
                context.publishCommand(), channelPrefix);
    }
}
