package io.dlock.internal.election;

import io.dlock.DistributedLock;
import io.dlock.LeaderTerm;
import io.dlock.LockLostException;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * One term of a {@link FencedLeaderElection}: valid while not revoked, within the renew deadline counted from the last
 * confirmed renewal's send, and within the lock's own known validity. Written by the election's loop thread (the
 * confirmed sends, the revocation); read by any thread. Thread-safe, never blocks.
 */
final class ElectedTerm implements LeaderTerm {
    private final String election;
    private final long epoch;
    private final Instant since;
    private final DistributedLock hold;
    private final LongSupplier nanoTime;
    private final long renewDeadlineNanos;
    private final CompletableFuture<Cause> revoked = new CompletableFuture<>();
    /** When the last confirmed acquisition or renewal was sent, on {@link #nanoTime}. */
    private volatile long confirmedSentAt;
    /** When the term was revoked, on {@link #nanoTime}; meaningful once {@link #isRevoked()}. */
    private volatile long revokedAt;

    /**
     * @param hold   the election's view of the fenced lock, whose {@link DistributedLock#leaseValidFor()} bounds the term
     * @param sentAt when the winning acquisition was sent (or earlier), on {@code nanoTime}
     */
    ElectedTerm(String election, long epoch, Instant since, DistributedLock hold, LongSupplier nanoTime,
                long renewDeadlineNanos, long sentAt) {
        this.election = election;
        this.epoch = epoch;
        this.since = since;
        this.hold = hold;
        this.nanoTime = nanoTime;
        this.renewDeadlineNanos = renewDeadlineNanos;
        this.confirmedSentAt = sentAt;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public Instant since() {
        return since;
    }

    @Override
    public boolean isValid() {
        return validForNanos() > 0;
    }

    @Override
    public Duration validFor() {
        return Duration.ofNanos(validForNanos());
    }

    @Override
    public long requireValid() {
        if (isValid()) {
            return epoch;
        }
        Cause cause = revoked.getNow(null);
        String why = cause != null ? "it was revoked (" + cause + ")"
                : stepDownAt() - nanoTime.getAsLong() <= 0 ? "no renewal was confirmed within the renew deadline"
                : "the lock's lease is no longer known valid";
        throw new LockLostException(election, "leader election '" + election + "': the term of epoch " + epoch
                + " is no longer valid: " + why);
    }

    @Override
    public CompletableFuture<Cause> revocationAsync() {
        return revoked;
    }

    /** A renewal sent at {@code sentAt} was confirmed: the renew deadline counts from there. */
    void confirmed(long sentAt) {
        if (sentAt - confirmedSentAt > 0) {
            confirmedSentAt = sentAt;
        }
    }

    /** @return when this candidate steps down without a further confirmed renewal, on {@code nanoTime} */
    long stepDownAt() {
        return confirmedSentAt + renewDeadlineNanos;
    }

    /**
     * Ends the term; the first call wins.
     *
     * @return whether this call ended it
     */
    boolean revoke(Cause cause) {
        if (revoked.isDone()) {
            return false;
        }
        revokedAt = nanoTime.getAsLong();
        return revoked.complete(cause);
    }

    /** @return when the term was revoked, on the clock; only after {@link #isRevoked()} */
    long revokedAt() {
        return revokedAt;
    }

    boolean isRevoked() {
        return revoked.isDone();
    }

    private long validForNanos() {
        if (revoked.isDone()) {
            return 0;
        }
        long byDeadline = stepDownAt() - nanoTime.getAsLong();
        if (byDeadline <= 0) {
            return 0;
        }
        return Math.max(0, Math.min(byDeadline, hold.leaseValidFor().toNanos()));
    }

    @Override
    public String toString() {
        return "LeaderTerm{" + election + ", epoch=" + epoch + ", since=" + since + ", valid=" + isValid() + "}";
    }
}
