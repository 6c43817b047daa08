package io.dlock.internal.multilock;

import io.dlock.DistributedLock;
import io.dlock.LockOwner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The state of a multi-lock (its name, members in the global order, and owner) and its read-only operations, each
 * an aggregate over the members as {@link io.dlock.MultiLock} defines it. Immutable and thread-safe.
 */
abstract class MultiLockQueries implements DistributedLock {
    /** {@code MultiLock[a, b(WRITE)]}: a description, not a key. */
    final String name;
    /** In acquisition order; each acts for the calling thread (views are made per call by {@link #owned()}). */
    final List<DistributedLock> members;
    /** The fixed owner of a view of {@code as}, or null for the calling thread. */
    private final LockOwner owner;

    MultiLockQueries(String name, List<DistributedLock> members, LockOwner owner) {
        this.name = name;
        this.members = members;
        this.owner = owner;
    }

    /** @return the owner the methods without an explicit one act for now */
    final LockOwner ownerNow() {
        return owner != null ? owner : LockOwner.ofCurrentThread();
    }

    /** @return the members acting for {@link #ownerNow()}, in acquisition order */
    final List<DistributedLock> owned() {
        LockOwner now = ownerNow();
        return members.stream().map(m -> m.as(now)).toList();
    }

    static List<DistributedLock> reversed(List<DistributedLock> members) {
        List<DistributedLock> copy = new ArrayList<>(members);
        Collections.reverse(copy);
        return copy;
    }

    /** The members in acquisition order: for the calling thread the objects given, for a view their views. */
    public final List<DistributedLock> members() {
        return owner == null ? members : owned();
    }

    @Override
    public final String getName() {
        return name;
    }

    @Override
    public final boolean isLocked() {
        for (DistributedLock member : members) {
            if (member.isLocked()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public final boolean isHeldByCurrentThread() {
        for (DistributedLock member : owned()) {
            if (!member.isHeldByCurrentThread()) {
                return false;
            }
        }
        return true;
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public final boolean isHeldByThread(long threadId) {
        return as(LockOwner.of(threadId)).isHeldByCurrentThread();
    }

    @Override
    public final int getHoldCount() {
        int least = Integer.MAX_VALUE;
        for (DistributedLock member : owned()) {
            least = Math.min(least, member.getHoldCount());
            if (least == 0) {
                break;
            }
        }
        return least;
    }

    @Override
    public final long remainTimeToLive() {
        long least = TTL_NOT_LOCKED;
        for (DistributedLock member : members) {
            least = shorter(least, member.remainTimeToLive());
        }
        return least;
    }

    /** The shorter of two {@code remainTimeToLive} answers: a TTL beats "no expiry", which beats "not locked". */
    static long shorter(long a, long b) {
        if (a >= 0 && b >= 0) {
            return Math.min(a, b);
        }
        return Math.max(a, b); // a TTL (>= 0) beats -1 (no expiry), which beats -2 (not locked)
    }

    @Override
    public final Duration leaseValidFor() {
        Duration least = null;
        for (DistributedLock member : owned()) {
            Duration valid = member.leaseValidFor();
            if (valid.isZero()) {
                return Duration.ZERO;
            }
            least = least == null || valid.compareTo(least) < 0 ? valid : least;
        }
        return least == null ? Duration.ZERO : least;
    }

    @Override
    public final CompletableFuture<Boolean> isLockedAsync() {
        CompletableFuture<Boolean> any = CompletableFuture.completedFuture(false);
        for (DistributedLock member : members) {
            any = any.thenCompose(found -> found ? CompletableFuture.completedFuture(true) : member.isLockedAsync());
        }
        return any;
    }

    /** The owner's (on a view: the view's owner, not the calling thread's) smallest hold count of the members. */
    @Override
    public final CompletableFuture<Integer> getHoldCountAsync() {
        return holdCountAsync(ownerNow());
    }

    /** Whether the owner (on a view: the view's owner, not the calling thread) holds every member. */
    @Override
    public final CompletableFuture<Boolean> isHeldByCurrentThreadAsync() {
        return holdCountAsync(ownerNow()).thenApply(count -> count > 0);
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public final CompletableFuture<Integer> getHoldCountAsync(long ownerId) {
        return holdCountAsync(LockOwner.of(ownerId));
    }

    /** The smallest of {@code owner}'s hold counts of the members, asked one member after another. */
    private CompletableFuture<Integer> holdCountAsync(LockOwner owner) {
        CompletableFuture<Integer> least = CompletableFuture.completedFuture(Integer.MAX_VALUE);
        for (DistributedLock member : members) {
            least = least.thenCompose(sofar -> sofar == 0 ? CompletableFuture.completedFuture(0)
                    : member.as(owner).getHoldCountAsync().thenApply(count -> Math.min(sofar, count)));
        }
        return least;
    }

    @Override
    public final CompletableFuture<Long> remainTimeToLiveAsync() {
        CompletableFuture<Long> least = CompletableFuture.completedFuture(TTL_NOT_LOCKED);
        for (DistributedLock member : members) {
            least = least.thenCompose(sofar -> member.remainTimeToLiveAsync().thenApply(ttl -> shorter(sofar, ttl)));
        }
        return least;
    }

    @Override
    public String toString() {
        return name;
    }
}
