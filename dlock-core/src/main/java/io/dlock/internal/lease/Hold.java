package io.dlock.internal.lease;

import io.dlock.DistributedLock;
import io.dlock.LockEventListener;
import io.dlock.LockKind;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * What this client knows about one owner's hold on one lock: the lease of each outstanding acquisition (innermost
 * last), whether the watchdog renews it, and until when it is known to be valid.
 *
 * <p>Redis stays the authority on the hold count; this local record only decides renewal, partial-release leases,
 * {@code leaseValidFor()} and lease-lost reporting. A hold object lives from the first acquisition to the last release
 * or loss; a later acquisition creates a new one, so a late answer about an old hold never touches a new one.
 *
 * <p>Thread-safety: all mutable state is guarded by {@code this}; critical sections never block.
 */
public final class Hold implements LockEventListener.Hold, LeaseEnds.FixedLease {
    /** Lease value meaning "renewed by the watchdog". */
    public static final long WATCHDOG = -1L;
    private static final long MAX_LEASE_MS = DistributedLock.MAX_LEASE.toMillis();

    enum State { ACTIVE, RELEASED, LOST }

    private final LockKind kind;
    private final String lockName;
    private final String key;
    private final String field;
    private final long ownerId;
    private final RenewalSender renewal;

    private final Deque<Long> leases = new ArrayDeque<>();
    /**
     * Only for holds whose every acquisition expires on its own (read holds, {@link RenewalSender#expiresPerAcquisition}):
     * per acquisition, innermost last, {valid until, margin} in ns. Such a hold lasts as long as its longest one.
     */
    private final Deque<long[]> acquisitionExpiries;
    private int watchdogAcquisitions;
    private long validUntilNanos;
    private long marginNanos;
    private int pendingReleases;
    /** When the earliest release still in flight was sent (valid while {@code pendingReleases > 0}). */
    private long releaseSentAtNanos;
    /** The fencing token of this hold (fenced locks), or null. */
    private volatile Long fencingToken;
    private boolean lastRenewalFailed;
    /** Set after a release whose outcome is unknown: the hold is left to expire (see {@link #stopRenewal()}). */
    private boolean renewalStopped;
    /** When the last granted lease extension was sent ({@link #extended}); valid while {@code extended}. */
    private long extendedAtNanos;
    private boolean extended;
    private State state = State.ACTIVE;

    Hold(LockKind kind, String lockName, String key, String field, long ownerId, RenewalSender renewal) {
        this.kind = kind;
        this.lockName = lockName;
        this.key = key;
        this.field = field;
        this.ownerId = ownerId;
        this.renewal = renewal;
        this.acquisitionExpiries = renewal.expiresPerAcquisition() ? new ArrayDeque<>() : null;
    }

    /** How this kind of hold is renewed (holds of one kind are renewed together). */
    public RenewalSender renewal() {
        return renewal;
    }

    @Override
    public LockKind kind() {
        return kind;
    }

    @Override
    public String lockName() {
        return lockName;
    }

    public String key() {
        return key;
    }

    public String field() {
        return field;
    }

    @Override
    public long ownerId() {
        return ownerId;
    }

    /** Records an acquisition whose request was sent at {@code sentAtNanos}; Redis reset the TTL to its lease. */
    synchronized void granted(long leaseMs, long effectiveLeaseMs, long sentAtNanos) {
        leases.addLast(leaseMs);
        if (leaseMs == WATCHDOG) {
            watchdogAcquisitions++;
        }
        if (acquisitionExpiries != null) {
            acquisitionExpiries.addLast(new long[] {sentAtNanos + effectiveLeaseMs * 1_000_000L,
                    margin(effectiveLeaseMs)});
            setValidityToLongestAcquisition();
        } else {
            setValidity(sentAtNanos, effectiveLeaseMs);
        }
    }

    /**
     * A renewal sent at {@code sentAtNanos} reset the TTL to {@code leaseMs}; ignored when sent before the last lease
     * extension, which may have set a shorter TTL after it.
     */
    synchronized void renewed(long sentAtNanos, long leaseMs) {
        if (state == State.ACTIVE && !(extended && sentAtNanos - extendedAtNanos < 0)) {
            lastRenewalFailed = false;
            if (acquisitionExpiries != null) {
                // Renewal extends every live acquisition of the owner; only the watchdog ones are known to be live
                // (an expired fixed-lease one is not brought back), so only they count as extended.
                Iterator<Long> lease = leases.iterator();
                for (long[] expiry : acquisitionExpiries) {
                    if (lease.next() == WATCHDOG && sentAtNanos + leaseMs * 1_000_000L - expiry[0] > 0) {
                        expiry[0] = sentAtNanos + leaseMs * 1_000_000L;
                        expiry[1] = margin(leaseMs);
                    }
                }
                setValidityToLongestAcquisition();
            } else if (sentAtNanos + leaseMs * 1_000_000L - validUntilNanos > 0) {
                setValidity(sentAtNanos, leaseMs);
            }
        }
    }

    /**
     * A lease extension sent at {@code sentAtNanos} was granted: Redis keeps the hold {@code leaseMs} from no earlier
     * than then. From now on every acquisition counts as taken with that fixed lease (so none is watchdog-renewed,
     * and a partial release sets that lease again), and the validity is counted from the send, also when that is
     * sooner than before.
     */
    synchronized void extended(long sentAtNanos, long leaseMs) {
        if (state != State.ACTIVE) {
            return;
        }
        int count = leases.size();
        leases.clear();
        for (int i = 0; i < count; i++) {
            leases.addLast(leaseMs);
        }
        watchdogAcquisitions = 0;
        extended = true;
        extendedAtNanos = sentAtNanos;
        if (acquisitionExpiries != null) {
            for (long[] expiry : acquisitionExpiries) {
                expiry[0] = sentAtNanos + leaseMs * 1_000_000L;
                expiry[1] = margin(leaseMs);
            }
            setValidityToLongestAcquisition();
        } else {
            setValidity(sentAtNanos, leaseMs);
        }
    }

    /**
     * Gives the innermost acquisition, taken with the watchdog, the fixed lease {@code leaseMs} while another
     * acquisition of this hold keeps it watchdog-renewed: only the record changes (Redis keeps the hold as long as
     * the watchdog renews it, and the validity stays where the last grant or renewal put it), so that the acquisition
     * counts as a fixed-lease one from now on (a partial release, {@link #currentLease}).
     *
     * @return whether it was done; false when no other watchdog acquisition keeps the hold renewed (or the innermost
     *         is not a watchdog one, or the hold has ended): then the caller extends the hold instead
     */
    synchronized boolean innermostToFixedLease(long leaseMs) {
        if (state != State.ACTIVE || renewalStopped || watchdogAcquisitions < 2 || !peekLastIsWatchdog()) {
            return false;
        }
        leases.pollLast();
        leases.addLast(leaseMs);
        watchdogAcquisitions--;
        return true;
    }

    /**
     * A lease extension sent at {@code sentAtNanos} may or may not have run (no reply): the validity becomes the
     * sooner of what it was and {@code leaseMs} from the send, which Redis keeps either way. Nothing else changes.
     */
    synchronized void extensionUnknown(long sentAtNanos, long leaseMs) {
        keptAtMost(sentAtNanos, leaseMs);
    }

    /**
     * Redis keeps the hold at most {@code leaseMs} from {@code sentAtNanos} (a check sent then read its TTL back:
     * another client may have shortened it): the validity becomes the sooner of what it was and that, never later. A
     * request sent after the check that sets the TTL again (a re-entry, an extension, a partial release) is answered
     * after it (one connection answers in order), so its own record comes last.
     */
    synchronized void keptAtMost(long sentAtNanos, long leaseMs) {
        if (leaseMs > MAX_LEASE_MS) {
            return; // longer than any lease this client grants: caps nothing (and its nanoseconds could overflow)
        }
        long until = sentAtNanos + leaseMs * 1_000_000L;
        long margin = margin(leaseMs);
        if (acquisitionExpiries != null) {
            for (long[] expiry : acquisitionExpiries) {
                if ((until - margin) - (expiry[0] - expiry[1]) < 0) {
                    expiry[0] = until;
                    expiry[1] = margin;
                }
            }
            setValidityToLongestAcquisition();
        } else if ((until - margin) - (validUntilNanos - marginNanos) < 0) {
            validUntilNanos = until;
            marginNanos = margin;
        }
    }

    private void setValidity(long fromNanos, long leaseMs) {
        validUntilNanos = fromNanos + leaseMs * 1_000_000L;
        marginNanos = margin(leaseMs);
    }

    /** Drift allowance as in the Redlock analysis: 1% of the lease plus 2 ms. */
    private static long margin(long leaseMs) {
        return leaseMs * 10_000L + 2_000_000L;
    }

    private void setValidityToLongestAcquisition() {
        long[] longest = null;
        for (long[] expiry : acquisitionExpiries) {
            if (longest == null || (expiry[0] - expiry[1]) - (longest[0] - longest[1]) > 0) {
                longest = expiry;
            }
        }
        if (longest != null) {
            validUntilNanos = longest[0];
            marginNanos = longest[1];
        }
    }

    /**
     * After a partial release of a hold whose TTL Redis resets (plain, fair, write, fenced): the release script set it
     * to {@code leaseAfterPartialRelease} no earlier than the release was sent, so the hold is valid until then, no
     * later and no sooner: sooner than before when the released re-entry had the longer lease, later when it had the
     * shorter one (an outer fixed lease outlives an inner watchdog re-entry). A renewal never shortens a TTL that is
     * longer than the watchdog timeout (docs/protocol.md §1.6), so none can undercut it.
     */
    private void validityAfterPartialRelease(long watchdogMs) {
        long leaseMs = watchdogAcquisitions > 0 ? watchdogMs : effective(leases.peekLast(), watchdogMs);
        validUntilNanos = releaseSentAtNanos + leaseMs * 1_000_000L;
        marginNanos = margin(leaseMs);
    }

    synchronized boolean isActive() {
        return state == State.ACTIVE;
    }

    synchronized boolean isWatchdogRenewed() {
        return state == State.ACTIVE && watchdogAcquisitions > 0 && !renewalStopped;
    }

    /** Granted, its end no watchdog's to push back (a fixed lease, or renewal stopped), no release in flight. */
    @Override
    public synchronized boolean fixedLeaseRunning() {
        return state == State.ACTIVE && !leases.isEmpty() && pendingReleases == 0
                && (watchdogAcquisitions == 0 || renewalStopped);
    }

    /**
     * The watchdog renews this hold no more: its validity stays where the last grant or renewal put it (never later
     * than Redis keeps it), and when it runs out the hold is reported lost ({@code EXPIRED}).
     */
    synchronized void stopRenewal() {
        renewalStopped = true;
    }

    synchronized boolean hasPendingRelease() {
        return pendingReleases > 0;
    }

    /** @return acquisitions left once the releases in flight (sent, not yet answered) are done; 0 once ended */
    public synchronized int acquisitionsAfterPendingReleases() {
        return state == State.ACTIVE ? Math.max(0, leases.size() - pendingReleases) : 0;
    }

    /** @return the lease (ms) Redis keeps the hold for now: the watchdog's while any acquisition uses it, else the
     *          innermost acquisition's */
    public synchronized long currentLease(long watchdogMs) {
        return watchdogAcquisitions > 0 ? watchdogMs : effective(leases.peekLast(), watchdogMs);
    }

    synchronized long validUntilNanos() {
        return validUntilNanos;
    }

    synchronized void renewalFailed() {
        lastRenewalFailed = true;
    }

    synchronized boolean lastRenewalFailed() {
        return lastRenewalFailed;
    }

    /** @return how many acquisitions (the first and re-entries) this hold counts; 0 once it has ended */
    public synchronized int acquisitions() {
        return state == State.ACTIVE ? leases.size() : 0;
    }

    /** The same as {@link #acquisitions()}, for lock event listeners. */
    @Override
    public int holdCount() {
        return acquisitions();
    }

    /** Nanoseconds this hold is still known valid at {@code nowNanos}, after the safety margin; ≤ 0 when not. */
    @Override
    public synchronized long validForNanos(long nowNanos) {
        return state == State.ACTIVE ? validUntilNanos - marginNanos - nowNanos : 0;
    }

    /**
     * @return the lease (ms) Redis should keep when the innermost acquisition is released and others remain: the
     * watchdog's while any remaining acquisition uses it, else the lease of the next innermost one
     */
    public synchronized long leaseAfterPartialRelease(long watchdogMs) {
        int remainingWatchdog = watchdogAcquisitions - (peekLastIsWatchdog() ? 1 : 0);
        if (remainingWatchdog > 0) {
            return watchdogMs;
        }
        Iterator<Long> innermostFirst = leases.descendingIterator();
        if (innermostFirst.hasNext()) {
            innermostFirst.next();
        }
        return innermostFirst.hasNext() ? effective(innermostFirst.next(), watchdogMs) : watchdogMs;
    }

    private boolean peekLastIsWatchdog() {
        Long last = leases.peekLast();
        return last != null && last == WATCHDOG;
    }

    private static long effective(Long lease, long watchdogMs) {
        return lease == null || lease == WATCHDOG ? watchdogMs : lease;
    }

    /** @param sentAtNanos when the release request is sent (before it is) */
    synchronized void releaseStarted(long sentAtNanos) {
        if (pendingReleases == 0 || sentAtNanos - releaseSentAtNanos < 0) {
            releaseSentAtNanos = sentAtNanos;
        }
        pendingReleases++;
    }

    /**
     * @param watchdogMs the watchdog lease, for the TTL Redis keeps after a partial release
     * @return true when this was the last hold, so the record is finished
     */
    synchronized boolean releaseDone(boolean full, long watchdogMs) {
        pendingReleases--;
        if (full || leases.size() <= 1) {
            leases.clear();
            if (acquisitionExpiries != null) {
                acquisitionExpiries.clear();
            }
            watchdogAcquisitions = 0;
            if (state == State.ACTIVE) {
                state = State.RELEASED;
            }
            return true;
        }
        Long lease = leases.pollLast();
        if (lease != null && lease == WATCHDOG) {
            watchdogAcquisitions--;
        }
        if (acquisitionExpiries != null) {
            // the newest acquisition's timeout key went; the hold lasts as long as the longest of the others
            acquisitionExpiries.pollLast();
            setValidityToLongestAcquisition();
        } else {
            validityAfterPartialRelease(watchdogMs);
        }
        return false;
    }

    synchronized void releaseFailed() {
        pendingReleases--;
    }

    /** @return whether the watchdog renews this hold (for reporting) */
    public boolean watchdogRenewed() {
        return isWatchdogRenewed();
    }

    /** @return the fencing token of this hold, or null (not a fenced lock, or unknown) */
    public Long fencingToken() {
        return fencingToken;
    }

    /** Records the fencing token of this hold: the one Redis issued when the hold began. */
    public void fencingToken(long token) {
        fencingToken = token;
    }

    /** Marks the hold finished without a loss report (force-unlocked by this client, or found not held). */
    synchronized void discard() {
        if (state == State.ACTIVE) {
            state = State.RELEASED;
        }
    }

    /** @return true if the hold was active and is now lost (the caller reports it once) */
    synchronized boolean markLost() {
        if (state != State.ACTIVE) {
            return false;
        }
        state = State.LOST;
        return true;
    }

    @Override
    public synchronized String toString() {
        return "Hold{" + key + " " + field + " " + state + " leases=" + leases + "}";
    }
}
