package io.dlock.internal.semaphore;

import io.dlock.DistributedLock;
import io.dlock.DistributedSemaphore;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Args;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@link DistributedSemaphore} on Redisson's {@code RSemaphore} wire (docs/protocol.md §13.1): scripts
 * {@code sem_acquire} and {@code sem_update}. Keeps nothing but its keys; every sync method is its async twin
 * awaited.
 */
public final class RedisSemaphore extends PermitCounterBase implements DistributedSemaphore {
    static final String KIND = "semaphore";
    /** The grant of permits a release of this client handed on: no attempt of this acquisition took them. */
    private static final String HANDED_OVER = "handed-over";

    public RedisSemaphore(SemaphoreServices services, String name) {
        super(services, name, KIND);
    }

    // ---- acquisitions

    @Override
    public void acquire() throws InterruptedException {
        acquire(1);
    }

    @Override
    public CompletableFuture<Void> acquireAsync() {
        return acquireAsync(1);
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        acquisition(permits, DistributedLock.WAIT_FOREVER).await("acquire");
    }

    @Override
    public CompletableFuture<Void> acquireAsync(int permits) {
        try {
            return acquisition(permits, DistributedLock.WAIT_FOREVER).toCaller(granted -> (Void) null, "acquire");
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean tryAcquire() {
        return tryAcquire(1);
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync() {
        return tryAcquireAsync(1);
    }

    @Override
    public boolean tryAcquire(int permits) {
        return acquisition(permits, 0).awaitSingleAttempt("tryAcquire") != null;
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits) {
        return tryAcquireAsync(permits, Duration.ZERO);
    }

    @Override
    public boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException {
        long waitNanos = Args.waitNanos(KIND, getName(), "waitTime", waitTime);
        PermitAcquisition<String> acquisition = acquisition(permits, waitNanos);
        return (waitNanos == 0 ? acquisition.awaitSingleAttempt("tryAcquire") : acquisition.await("tryAcquire"))
                != null;
    }

    @Override
    public CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime) {
        try {
            return acquisition(permits, Args.waitNanos(KIND, getName(), "waitTime", waitTime))
                    .toCaller(Objects::nonNull, "tryAcquire");
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A grant is the id of the attempt that took the permits (whose mark a give-back deletes), or {@link #HANDED_OVER}
     * when a release of this client handed them on ({@link LocalPermits}).
     *
     * @param waitNanos 0 for one attempt, {@link DistributedLock#WAIT_FOREVER} for no limit
     * @throws IllegalArgumentException when {@code permits} is below 1
     */
    private PermitAcquisition<String> acquisition(int permits, long waitNanos) {
        int wanted = Args.atLeast(KIND, getName(), "permits", permits, 1);
        String count = Integer.toString(wanted);
        String channel = keys.channel();
        LocalPermitLines lines = services.localPermits;
        // a single attempt never waits, so it never takes a place in line
        PermitGate gate = waitNanos == 0 || !lines.enabled() ? null
                : new PermitGate(lines, services.acquisitions.waiting().hub(), channel, wanted, null);
        return new PermitAcquisition<>(services, KIND, getName(), false, channel,
                new PermitAcquisition.Grants<>() {
                    @Override
                    public CompletableFuture<PermitAcquisition.Reply<String>> attempt(String attemptId) {
                        CompletableFuture<Long> reply = services.run(SemaphoreScripts.SEM_ACQUIRE,
                                ScriptOutputType.INTEGER, keys.countAndMark(attemptId), count,
                                Long.toString(services.grantMarkMs));
                        return reply.thenApply(r -> {
                            if (r != 1L) {
                                return PermitAcquisition.Reply.busy(0);
                            }
                            lines.granted(channel, wanted);
                            return new PermitAcquisition.Reply<>(attemptId, 0);
                        });
                    }

                    @Override
                    public CompletableFuture<?> giveBack(String attemptId) {
                        return services.runByText(SemaphoreScripts.SEM_GIVE_BACK, ScriptOutputType.INTEGER,
                                keys.countAndMark(attemptId), "unknown", count, services.publishCommand,
                                keys.channel());
                    }

                    @Override
                    public CompletableFuture<?> undo(String grant) {
                        if (HANDED_OVER.equals(grant)) {
                            return releasePermits(wanted); // on to the next waiter of this client, or to Redis
                        }
                        lines.forget(channel, wanted);
                        return giveBackScript("known", grant, count);
                    }

                    @Override
                    public String handedOver(PermitTicket ticket) {
                        return HANDED_OVER;
                    }
                }, gate, waitNanos);
    }

    private CompletableFuture<Long> giveBackScript(String mode, String attemptId, String permits) {
        return services.run(SemaphoreScripts.SEM_GIVE_BACK, ScriptOutputType.INTEGER, keys.countAndMark(attemptId),
                mode, permits, services.publishCommand, keys.channel());
    }

    // ---- changes of the count

    private CompletableFuture<Long> update(String mode, int permits, long ttlMs) {
        return services.run(SemaphoreScripts.SEM_UPDATE, ScriptOutputType.INTEGER, keys.count(), mode,
                Integer.toString(permits), Long.toString(ttlMs), services.publishCommand, keys.channel());
    }

    @Override
    CompletableFuture<Boolean> trySet(int permits, long ttlMs) {
        return update("try-set", permits, ttlMs).thenApply(r -> r == 1L);
    }

    @Override
    CompletableFuture<Void> set(int permits) {
        return update("set", permits, 0).thenApply(r -> null);
    }

    @Override
    CompletableFuture<Void> add(int delta) {
        return update("add", delta, 0).thenApply(r -> null);
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return releaseAsync(1);
    }

    @Override
    public void release(int permits) {
        sync(releaseChecked(permits), "release");
    }

    @Override
    public CompletableFuture<Void> releaseAsync(int permits) {
        return async(releaseChecked(permits), "release");
    }

    private CompletableFuture<Void> releaseChecked(int permits) {
        int checked = Args.atLeast(KIND, getName(), "permits", permits, 1);
        services.checkOpen(KIND, getName());
        return releasePermits(checked);
    }

    /**
     * Releases {@code permits}: to the acquisitions of this client waiting in line first ({@link LocalPermits}), the
     * rest to Redis. Permits are handed on only once Redis answered the release's call: the {@code add} of the rest,
     * or, when nothing is left, a read of the count ({@code available}, which also refuses a key of another type).
     * So a release, like every call, fails with Redis unavailable; its reserved waiters then ask Redis themselves, and
     * the permits held back for them are released to Redis after all (an {@code add} behind the failed call): a
     * failed release may have run, as a plain one may, and never holds permits back for good.
     */
    private CompletableFuture<Void> releasePermits(int permits) {
        LocalPermits.Reservation reservation = services.localPermits.reserve(keys.channel(), permits);
        if (reservation.served().isEmpty()) {
            return update("release", permits, 0).thenAccept(
                    receivers -> services.releasedInRedis(reservation, keys.channel(), receivers));
        }
        CompletableFuture<Long> call = reservation.left() > 0 ? update("add", reservation.left(), 0)
                : update("available", 0, 0);
        return call.handle((answer, error) -> {
            if (error != null) {
                reservation.fail();
                // the permits held back for the waiters go to Redis after all, behind the failed call on its
                // connection: if Redis was only slow, both run and the release is whole, as a plain one would be
                services.acquisitions.track(update("add", reservation.permits(), 0));
                throw new CompletionException(Errors.unwrap(error));
            }
            reservation.handOver();
            return null;
        });
    }

    private CompletableFuture<Integer> drain() {
        services.checkOpen(KIND, getName());
        return update("drain", 0, 0).thenApply(Long::intValue);
    }

    @Override
    public int drainPermits() {
        return sync(drain(), "drainPermits");
    }

    @Override
    public CompletableFuture<Integer> drainPermitsAsync() {
        return async(drain(), "drainPermits");
    }

    /** The count, read by {@code sem_update} "available", which refuses a key that is not a permit count. */
    @Override
    CompletableFuture<Integer> available() {
        services.checkOpen(KIND, getName());
        return update("available", 0, 0).thenApply(count -> {
            if (count != count.intValue()) {
                throw new io.dlock.LockException(getName(), KIND + " '" + getName() + "': availablePermits failed: "
                        + "the key holds " + count + " permits, outside the range of a Java int (written by another "
                        + "client: dlock refuses changes that leave that range)", null);
            }
            return count.intValue();
        });
    }

    /** Removes the count, only if it is a permit count (sem_update "delete"); a business key is refused, untouched. */
    @Override
    CompletableFuture<Boolean> deleteKeys() {
        services.checkOpen(KIND, getName());
        return update("delete", 0, 0).thenApply(n -> n > 0);
    }

    @Override
    public String toString() {
        return "DistributedSemaphore{" + getName() + "}";
    }
}
