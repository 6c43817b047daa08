package io.dlock.internal.semaphore;

import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What one acquisition of a leased semaphore takes and gives back ({@link PermitAcquisition.Grants}): each attempt
 * asks for {@code permits} permits, all or none, in one {@code pes_acquire} call, under ids of its own
 * ({@link PermitIds#series}: the attempt's id and the ids after it), so an attempt whose reply is lost is undone by
 * releasing exactly those ids, which cannot touch any other permit. Every grant is reported and watched before the
 * caller hears of it.
 */
final class LeasedGrants implements PermitAcquisition.Grants<List<LeasedPermit>> {
    private final RedisLeasedSemaphore semaphore;
    private final SemaphoreServices services;
    private final SemaphoreKeys keys;
    private final LocalPermitLines lines;
    private final String channel;
    private final int permits;
    /** The lease in ms: the fixed one, or the watchdog's. */
    private final long lease;
    private final boolean watchdog;
    /** The acquiring thread's id (reported with the permit). */
    private final long owner;

    LeasedGrants(RedisLeasedSemaphore semaphore, int permits, long lease, boolean watchdog, long owner) {
        this.semaphore = semaphore;
        this.services = semaphore.services();
        this.keys = semaphore.keys();
        this.lines = services.localPermits;
        this.channel = keys.channel();
        this.permits = permits;
        this.lease = lease;
        this.watchdog = watchdog;
        this.owner = owner;
    }

    @Override
    public CompletableFuture<PermitAcquisition.Reply<List<LeasedPermit>>> attempt(String attemptId) {
        String[] ids = PermitIds.series(attemptId, permits);
        String[] args = new String[3 + permits];
        args[0] = Long.toString(lease);
        args[1] = services.publishCommand;
        args[2] = keys.channel();
        System.arraycopy(ids, 0, args, 3, permits);
        long sentAt = semaphore.nanoTime();
        CompletableFuture<Long> reply = services.run(SemaphoreScripts.PES_ACQUIRE,
                ScriptOutputType.INTEGER, keys.both(), args);
        return reply.thenApply(r -> {
            if (r != 0L) {
                return PermitAcquisition.Reply.busy(r);
            }
            lines.granted(channel, permits);
            List<LeasedPermit> granted = new ArrayList<>(permits);
            for (String id : ids) {
                LeasedPermit permit = new LeasedPermit(semaphore, id, lease,
                        watchdog, owner, sentAt);
                // both before the caller hears of it; the grant first, as held() may report it lost
                services.events.get().permitGranted(semaphore.getName(), id);
                services.watchdog.held(permit);
                granted.add(permit);
            }
            return new PermitAcquisition.Reply<>(List.copyOf(granted), 0);
        });
    }

    @Override
    public CompletableFuture<?> giveBack(String attemptId) {
        return semaphore.releases().sendRelease(PermitReleases.EACH, true, PermitIds.series(attemptId, permits));
    }

    @Override
    public List<LeasedPermit> handedOver(PermitTicket ticket) {
        LeasedPermit permit = new LeasedPermit(semaphore, ticket.id(),
                ticket.leaseMs(), watchdog, owner, ticket.sentAtNanos());
        services.events.get().permitGranted(semaphore.getName(), ticket.id());
        services.watchdog.held(permit);
        return List.of(permit);
    }

    @Override
    public CompletableFuture<?> undo(List<LeasedPermit> granted) {
        lines.forget(channel, granted.size());
        String[] ids = new String[granted.size()];
        for (int i = 0; i < ids.length; i++) {
            LeasedPermit permit = granted.get(i);
            services.watchdog.forget(permit);
            if (permit.releaseStarting()) {
                services.events.get().permitReleased(semaphore.getName(), permit.id());
            }
            ids[i] = permit.id();
        }
        return semaphore.releases().sendRelease(PermitReleases.EACH, ids);
    }
}
