package io.dlock.internal.lock;

import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The protocol of the fenced lock ({@link io.dlock.LockKind#FENCED}): the plain lock's ({@link PlainProtocol}, same
 * hash, field, TTL rules and channel) with one step of its own, a fencing token taken by every acquisition that is
 * not a re-entry.
 *
 * <h2>Key layout (docs/protocol.md §2.1, §5.1)</h2>
 * <ul>
 *   <li>{@code NAME}, {@code redisson_lock__channel:{NAME}}: exactly the reentrant lock's, so a fenced holder
 *       excludes (and is excluded by) plain dlock locks and Redisson {@code RLock}/{@code RFencedLock} holders of
 *       the same name, and their releases wake each other's waiters.</li>
 *   <li>{@code redisson_lock_token:{NAME}}: the token counter, a decimal integer without TTL, shared with Redisson's
 *       {@code RFencedLock} (which {@code INCR}s it on each of its acquisitions). dlock never deletes it.</li>
 * </ul>
 *
 * <h2>Tokens</h2>
 * The acquire script ({@code fenced_acquire.lua}) issues {@code max(counter + 1, Redis TIME in µs since the epoch)}
 * and stores it back, in the same atomic step that creates the hold. Hence, for one name:
 * <ul>
 *   <li>each new token is greater than every value the counter held, whoever wrote it (dlock, or Redisson's
 *       {@code INCR}, which then goes on from ours);</li>
 *   <li>when the counter is lost (a restart without persistence, {@code FLUSHALL}, Redisson's {@code delete()}),
 *       the next dlock token is still greater than every earlier one, because every earlier token was at most the
 *       server's clock when it was issued: tokens cannot run ahead of the clock while fewer than one is issued per
 *       microsecond (each one costs a script call of several microseconds, so one Redis cannot exceed that). This
 *       needs a server clock that never steps back (across restarts too).</li>
 * </ul>
 * A re-entry keeps the hold's token, if the hold has one of its own. A hold taken through the plain lock of the same
 * name ({@code getLock}) has none: its first fenced acquisition takes a new token (never the counter's current value,
 * which may be the token of an earlier holder that was paused and lost the lock). The token of the current hold is
 * kept on the client's hold record ({@link Hold#fencingToken()}), so {@code getToken()} needs no round trip and
 * every lock object of this client sees it ({@link FencedTokens}).
 *
 * <h2>Replies that never came</h2>
 * An attempt whose reply is lost (command timeout while Redis is slow or paused, a cut connection) may still run in
 * Redis later and leave a hold that nobody knows of. As for the plain lock ({@link io.dlock.internal.acquire.PendingAcquisitions}), the
 * acquire script gets the count this client knows for the owner (its hold's acquisitions plus attempts in flight, of
 * every lock object of the client): a count above it is the lost attempt's, which this acquisition adopts (a fresh
 * one when the client knew of none: count 1 and a new token) instead of counting on top of it, so the count is never
 * reset under a live outer acquisition and the owner's last unlock frees the lock; a wait given up after such an
 * attempt drops what it may have left.
 *
 * <p>The release, give-up and forced release are the plain lock's, reached by composition; the extension and reads
 * are those of the common layout ({@link LockProtocol}), as for the plain lock. Unlike
 * the plain lock, owners of one client do not hand the lock to each other locally (no {@link #localGate}): every
 * acquisition goes through Redis, where its token is issued.
 */
final class FencedProtocol implements LockProtocol {
    /** Prefix of the token counter: {@code redisson_lock_token:{NAME}}. */
    static final String TOKEN_PREFIX = "redisson_lock_token";

    private static final long ACQUIRED = 1L;
    private static final long REENTERED = 2L;

    private final PlainProtocol plain;
    private final LockContext context;
    private final LockServices services;
    private final String name;
    private final String[] acquireKeys;

    FencedProtocol(LockContext context) {
        this.plain = new PlainProtocol(context);
        this.context = context;
        this.services = context.services();
        this.name = context.name();
        this.acquireKeys = new String[] {name, tokenKey(name)};
    }

    /** @return {@code redisson_lock_token:{name}} */
    static String tokenKey(String name) {
        return LockNames.prefixed(TOKEN_PREFIX, name);
    }

    @Override
    public LockContext context() {
        return context;
    }

    @Override
    public CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String field = context.ownerField(ownerId);
        Hold known = services.renewer.find(name, field);
        boolean hasToken = known != null && known.fencingToken() != null;
        HoldId id = new HoldId(name, field);
        String held = context.heldArg(id);
        long sentAt = services.renewer.nanoTime();
        return services.pending.<List<Object>>track(id,
                knownCount -> services.scripts.run(Scripts.FENCED_ACQUIRE, ScriptOutputType.MULTI, acquireKeys,
                        Long.toString(context.effectiveLease(leaseMs)), field, Long.toString(knownCount),
                        hasToken ? "1" : "0", held),
                values -> recordReply(values, id, ownerId, leaseMs, sentAt));
    }

    /** @return null when acquired (recorded, with the hold's token), else the lock's PTTL */
    private Long recordReply(List<Object> values, HoldId id, long ownerId, long leaseMs, long sentAt) {
        long outcome = (Long) values.get(0);
        long value = (Long) values.get(1);
        if (outcome == LockContext.HOLD_GONE) {
            throw context.holdGone(id);
        }
        if (outcome != ACQUIRED && outcome != REENTERED) {
            return value;
        }
        Hold hold = context.recordGrant(name, id.field(), ownerId, leaseMs, sentAt, services.hashFieldRenewal);
        if (outcome == ACQUIRED) {
            hold.fencingToken(value);
        }
        return null;
    }

    @Override
    public CompletableFuture<Void> giveUp(long ownerId) {
        return plain.giveUp(ownerId);
    }

    @Override
    public CompletableFuture<Long> release(long ownerId, Hold hold) {
        return plain.release(ownerId, hold);
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return plain.forceRelease();
    }

    @Override
    public String wakeupChannel(long ownerId) {
        return plain.wakeupChannel(ownerId);
    }
}
