package io.dlock.reactor;

import io.dlock.Blocking;
import io.dlock.LockClient;
import io.dlock.Permit;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A permit that {@link ReactiveLeasedSemaphore} emits: the core's permit, with the client that reports its loss, so
 * that {@link ReactiveLeasedSemaphore#using} can watch it ({@link #lost()}) over any acquisition of that class. Every
 * method of {@link Permit} is the core permit's. Thread-safe.
 */
final class WatchedPermit implements Permit {
    private final LockClient client;
    private final Permit permit;

    WatchedPermit(LockClient client, Permit permit) {
        this.client = client;
        this.permit = permit;
    }

    /**
     * Fails with {@link io.dlock.LockLostException} when the client reports this permit lost ({@link LossWatch}). The
     * client names a lost permit by its semaphore only; the permit's own state tells whether it is the one: a permit
     * reported lost is no longer valid ({@link Permit#leaseValidFor()} zero), and the watch ends before its release.
     */
    Mono<Void> lost() {
        String name = permit.semaphoreName();
        return LossWatch.watch(client, event -> event.lockName().equals(name) && permit.leaseValidFor().isZero(),
                () -> permit.leaseValidFor().isZero(), name,
                "leased semaphore '" + name + "': permit " + permit.id());
    }

    @Override
    public String id() {
        return permit.id();
    }

    @Override
    public String semaphoreName() {
        return permit.semaphoreName();
    }

    @Override
    public boolean isWatchdogRenewed() {
        return permit.isWatchdogRenewed();
    }

    @Override
    public Duration leaseValidFor() {
        return permit.leaseValidFor();
    }

    @Override
    @Blocking
    public boolean extendLease(Duration leaseTime) {
        return permit.extendLease(leaseTime);
    }

    @Override
    public CompletableFuture<Boolean> extendLeaseAsync(Duration leaseTime) {
        return permit.extendLeaseAsync(leaseTime);
    }

    @Override
    @Blocking
    public boolean release() {
        return permit.release();
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        return permit.releaseAsync();
    }

    @Override
    public void close() {
        permit.close();
    }

    @Override
    public String toString() {
        return permit.toString();
    }
}
