package io.dlock.internal.lock;

import io.dlock.FencedLock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A leader election's candidate lock: the fenced lock {@code NAME} with its {@link LeaderRecord} (docs/protocol.md
 * §14.4), acting for the candidate's own owner. The election acquires and releases through {@link #lock()} and renews
 * through {@link #renew}, which also waits for the replicas when the client confirms writes on them
 * ({@code syncReplicas}, §14.2). Immutable and thread-safe.
 */
public final class ElectionLock {
    private final RedisLock core;
    private final long ownerId;
    private final LeaderRecord record;
    private final FencedLock view;

    ElectionLock(RedisLock core, long ownerId, LeaderRecord record) {
        this.core = core;
        this.ownerId = ownerId;
        this.record = record;
        this.view = new FencedOwnerView(core, ownerId, false);
    }

    /** @return the fenced lock acting for the candidate's owner; its tokens are the epochs */
    public FencedLock lock() {
        return view;
    }

    /** @return the candidate's leader record and floor */
    public LeaderRecord record() {
        return record;
    }

    /**
     * @return completes once what the candidate's abandoned acquisitions left to clean up is done (a grant that
     *         crossed a cancel given back: {@link io.dlock.internal.lease.HoldTable#trackCleanup}); at once when
     *         nothing is pending. Never fails.
     */
    public CompletableFuture<Void> settled() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        core.services.holds().runAfterCleanups(() -> core.holdId(ownerId), () -> done.complete(null));
        return done;
    }

    /**
     * Renews the leader's hold and record to {@code lease} from the send ({@link LeaseExtension#extend}); with
     * {@code syncReplicas}, confirmed only once that many replicas have it ({@link ReplicaSync#confirmRenewal}).
     *
     * @return completes on a Redis I/O thread when confirmed; fails as the extension fails
     *         ({@link io.dlock.LockLostException} when the hold is gone), or with
     *         {@link io.dlock.ReplicasNotSyncedException} when too few replicas confirmed
     */
    public CompletableFuture<Void> renew(Duration lease) {
        return LeaseExtension.extend(core, ownerId, lease).thenCompose(extended -> core.services.redis()
                .replicaSync().confirmRenewal(core.name, core.protocol.holdKey()));
    }
}
