package io.dlock.internal.lock;

import io.dlock.FencedLock;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.internal.Errors;
import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fenced lock: the reentrant lock ({@link ReentrantRedisLock}, same hash, field, TTL rules and channel) whose
 * every acquisition that is not a re-entry takes a fencing token.
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
 * kept on the client's hold record ({@link Hold#fencingToken()}), so {@link #getToken()} needs no round trip and
 * every lock object of this client sees it.
 *
 * <h2>Replies that never came</h2>
 * An attempt whose reply is lost (command timeout while Redis is slow or paused, a cut connection) may still run in
 * Redis later and leave a hold that nobody knows of. As for the reentrant lock ({@link PendingAcquisitions}), the
 * acquire script gets the count this client knows for the owner (its hold's acquisitions plus attempts in flight, of
 * every lock object of the client): a count above it is the lost attempt's, which this acquisition adopts (a fresh
 * one when the client knew of none: count 1 and a new token) instead of counting on top of it, so the count is never
 * reset under a live outer acquisition and the owner's last unlock frees the lock; a wait given up after such an
 * attempt drops what it may have left.
 *
 * <p>The release, renewal and forced release are the reentrant lock's, reached by composition; the reads are the
 * common ones of {@link AbstractDistributedLock}.
 */
public final class FencedRedisLock extends AbstractDistributedLock implements FencedTokens {
    /** Prefix of the token counter: {@code redisson_lock_token:{NAME}}. */
    public static final String TOKEN_PREFIX = "redisson_lock_token";

    private static final long ACQUIRED = 1L;
    private static final long REENTERED = 2L;

    private final ReentrantRedisLock plain;
    private final String[] acquireKeys;

    public FencedRedisLock(LockServices services, String name) {
        super(services, LockNames.requireValid(name), LockKind.FENCED);
        this.plain = new ReentrantRedisLock(services, name);
        this.acquireKeys = new String[] {name, tokenKey(name)};
    }

    /** @return {@code redisson_lock_token:{name}} */
    public static String tokenKey(String name) {
        return LockNames.prefixed(TOKEN_PREFIX, name);
    }

    // ---- the lock kind's primitives ----

    @Override
    protected CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String field = ownerField(ownerId);
        long effectiveLease = leaseMs == LEASE_WATCHDOG ? services.renewer.watchdogMs() : leaseMs;
        Hold known = services.renewer.find(name, field);
        boolean hasToken = known != null && known.fencingToken() != null;
        long sentAt = services.renewer.nanoTime();
        return services.pending.<List<Object>>track(holdId(ownerId),
                knownCount -> services.scripts.run(Scripts.FENCED_ACQUIRE, ScriptOutputType.MULTI, acquireKeys,
                        Long.toString(effectiveLease), field, Long.toString(knownCount), hasToken ? "1" : "0"),
                values -> recordReply(values, ownerId, field, leaseMs, sentAt));
    }

    /** @return null when acquired (recorded, with the hold's token), else the lock's PTTL */
    private Long recordReply(List<Object> values, long ownerId, String field, long leaseMs, long sentAt) {
        long outcome = (Long) values.get(0);
        long value = (Long) values.get(1);
        if (outcome != ACQUIRED && outcome != REENTERED) {
            return value;
        }
        Hold hold = services.renewer.acquired(kind(), name, name, field, ownerId, leaseMs, sentAt,
                services.hashFieldRenewal);
        if (outcome == ACQUIRED) {
            hold.fencingToken(value);
        }
        return null;
    }

    /** As the reentrant lock's: drops what an attempt without a reply may have left ({@link ReentrantRedisLock}). */
    @Override
    protected CompletableFuture<Void> giveUp(long ownerId) {
        return plain.giveUp(ownerId);
    }

    @Override
    protected CompletableFuture<Long> sendRelease(long ownerId, Hold hold) {
        return plain.sendRelease(ownerId, hold);
    }

    @Override
    protected String describe() {
        return "fenced lock '" + name + "'";
    }

    @Override
    protected String wakeupChannel(long ownerId) {
        return plain.wakeupChannel(ownerId);
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        return plain.forceRelease();
    }

    /** @return a view acting for {@code ownerId} whose tokens are that owner's */
    @Override
    FencedLock viewFor(long ownerId) {
        return new FencedOwnerView(this, ownerId);
    }

    // ---- FencedLock ----

    @Override
    public FencedLock as(LockOwner owner) {
        return (FencedLock) super.as(owner);
    }

    @Override
    public FencedRedisLock fencedLock() {
        return this;
    }

    @Override
    public long tokenOwner() {
        return owner();
    }

    /**
     * The token of {@code ownerId}'s new hold once {@code acquisition} (of {@code lockAsync}: {@code Void}, or of
     * {@code tryLockAsync}: whether acquired) acquired it; null when it did not. Cancelling the result cancels the
     * acquisition (which abandons its wait); a hold acquired while the result was being cancelled is released again,
     * as a cancelled {@code lockAsync} does.
     */
    CompletableFuture<Long> tokenOnceAcquired(CompletableFuture<?> acquisition, long ownerId) {
        CompletableFuture<Long> token = new CompletableFuture<>();
        acquisition.whenComplete((acquired, error) -> {
            if (error != null) {
                token.completeExceptionally(Errors.unwrap(error));
            } else if (Boolean.FALSE.equals(acquired)) {
                token.complete(null);
            } else {
                try {
                    if (!token.complete(tokenOfNewHold(ownerId))) {
                        unlockAsync(ownerId); // cancelled meanwhile: nobody will release it
                    }
                } catch (RuntimeException e) {
                    token.completeExceptionally(e);
                }
            }
        });
        token.whenComplete((value, error) -> {
            if (token.isCancelled()) {
                acquisition.cancel(false);
            }
        });
        return token;
    }

    /**
     * The token of {@code ownerId}'s hold while that hold is known valid ({@link #leaseValidFor()} positive), so that
     * a holder whose lease ran out (or was found lost) gets null rather than a token it may no longer use.
     */
    Long tokenOf(long ownerId) {
        Hold hold = services.renewer.find(holdKey(), holdField(ownerId));
        return hold == null || hold.validForNanos(services.renewer.nanoTime()) <= 0 ? null : hold.fencingToken();
    }

    /**
     * The token of the hold {@code ownerId} just acquired (even if its lease is already shorter than the safety
     * margin); fails when that hold is already gone again.
     */
    long tokenOfNewHold(long ownerId) {
        Hold hold = services.renewer.find(holdKey(), holdField(ownerId));
        Long token = hold == null ? null : hold.fencingToken();
        if (token == null) {
            throw new LockException(name, "fenced lock '" + name + "': the hold ended right after it was acquired "
                    + "(a lease shorter than a round trip, or a forceUnlock from this client), so it has no token to "
                    + "give", null);
        }
        return token;
    }
}
