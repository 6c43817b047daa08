package io.dlock.internal.lock;

import io.dlock.ClientIdentity;
import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.script.ScriptCall;
import io.dlock.internal.script.Scripts;

import java.util.List;

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
 * the plain lock, owners of one client do not wait for each other locally (no {@link #localWait}): every
 * acquisition goes through Redis, where its token is issued.
 *
 * <h2>A leader election's lock</h2>
 * With a {@link LeaderRecord} (a candidate's lock, never a plain fenced lock), the same scripts get one key more
 * (docs/protocol.md §14.4): the acquisition takes a token above the candidate's floor as well and writes the leader
 * record, the extension refreshes the record's TTL, the last release deletes it; and the release hands nothing to
 * local waiters of the name (a hand-off would leave the record behind). Redisson's keys and values are the same.
 */
final class FencedProtocol implements LockProtocol {
    /** Prefix of the token counter: {@code redisson_lock_token:{NAME}}. */
    static final String TOKEN_PREFIX = "redisson_lock_token";

    private static final long ACQUIRED = 1L;
    private static final long REENTERED = 2L;

    private final PlainProtocol plain;
    private final LockContext context;
    private final String[] acquireKeys;
    /** A leader election's record, or null (a plain fenced lock). */
    private final LeaderRecord leader;

    FencedProtocol(LockContext context) {
        this(context, null);
    }

    /** @param leader a leader election's record, or null for a plain fenced lock */
    FencedProtocol(LockContext context, LeaderRecord leader) {
        this.plain = new PlainProtocol(context, leader == null ? null : leader.key());
        this.context = context;
        this.leader = leader;
        this.acquireKeys = leader == null ? new String[] {context.name(), tokenKey(context.name())}
                : new String[] {context.name(), tokenKey(context.name()), leader.key()};
    }

    /** @return {@code redisson_lock_token:{name}} */
    static String tokenKey(String name) {
        return LockNames.prefixed(TOKEN_PREFIX, name);
    }

    @Override
    public LockContext context() {
        return context;
    }

    /** A hold of the owner that has a token of its own keeps it; any other acquisition takes a new one. */
    @Override
    public ScriptCall acquire(AcquireRequest request, long knownCount) {
        Hold current = request.current();
        boolean hasToken = current != null && current.fencingToken() != null;
        String lease = Long.toString(request.effectiveLeaseMs());
        String field = context.ownerField(request.ownerId());
        if (leader == null) {
            return ScriptCall.multi(Scripts.FENCED_ACQUIRE, acquireKeys, lease, field, Long.toString(knownCount),
                    hasToken ? "1" : "0", request.held());
        }
        ClientIdentity who = leader.identity();
        return ScriptCall.multi(Scripts.FENCED_ACQUIRE, acquireKeys, lease, field, Long.toString(knownCount),
                hasToken ? "1" : "0", request.held(), Long.toString(leader.highestSeen()), context.publishCommand(),
                leader.channel(), who.clientId(), who.host(), Long.toString(who.pid()), who.application());
    }

    /** Reply {@code [outcome, value]}: a first acquisition's value is its token; a refusal's is the lock's PTTL. */
    @Override
    public AcquireReply readAcquire(Object reply, AcquireRequest request) {
        List<?> values = (List<?>) reply;
        long outcome = (Long) values.get(0);
        long value = (Long) values.get(1);
        if (outcome == AcquireReply.HOLD_GONE) {
            return AcquireReply.GONE;
        }
        if (outcome == ACQUIRED) {
            if (leader != null) {
                leader.seen(value);
            }
            return new AcquireReply.Granted(value);
        }
        return outcome == REENTERED ? AcquireReply.GRANTED : new AcquireReply.Busy(value);
    }

    @Override
    public ScriptCall dropUnknown(long ownerId, long leaseMs, long knownCount) {
        return plain.dropUnknown(ownerId, leaseMs, knownCount);
    }

    @Override
    public ScriptCall release(long ownerId, Hold hold, String countAfter) {
        return plain.release(ownerId, hold, countAfter);
    }

    /**
     * Owners of a plain lock of the same name that wait in this client may take the lock from a fenced release; not
     * from a leader's, which goes through Redis (its release deletes the leader record).
     */
    @Override
    public HandOff handOff(long ownerId, Hold hold, String countAfter) {
        return leader == null ? plain.handOff(ownerId, hold, countAfter) : null;
    }

    /** A leader's extension refreshes its leader record too (same TTL); otherwise the common one. */
    @Override
    public ScriptCall extend(long ownerId, long leaseMs) {
        if (leader == null) {
            return LockProtocol.super.extend(ownerId, leaseMs);
        }
        return ScriptCall.integer(Scripts.LOCK_EXTEND, new String[] {context.name(), leader.key()},
                Long.toString(leaseMs), holdField(ownerId));
    }

    @Override
    public ScriptCall forceRelease() {
        return plain.forceRelease();
    }

    @Override
    public String wakeupChannel(long ownerId) {
        return plain.wakeupChannel(ownerId);
    }
}
