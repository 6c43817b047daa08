package io.dlock.internal.lock;

import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.HeadStart;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.PendingAcquisitions;
import io.dlock.internal.events.EventSink;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.TaskScheduler;

import java.util.concurrent.TimeUnit;

/**
 * What every lock of one client shares, in seven named parts. Locks are small objects composed over these; they hold
 * no state of their own besides their name.
 *
 * @param settings     the client's id and the settings the kinds read
 * @param clock        the monotonic and the wall clock
 * @param redis        commands, scripts, wake-ups, replica confirmation, renewal senders
 * @param holds        everything this client knows about its holds and waits, and the one front door of a hold's
 *                     life (granted, releasing, released, lost); the renewer works behind it, unseen by the locks
 * @param acquisitions everything in flight of the client, every kind: registered loops, how they wait, the sync waits,
 *                     the callers' executor, close (the one close rule)
 * @param local        what the client knows of its own owners' exclusive holds and waits
 * @param events       where locks, the hold table and the renewer report events: the client's lock event listeners
 */
public record LockServices(LockSettings settings, LockClock clock, LockRedis redis, HoldTable holds,
                           Acquisitions acquisitions, LocalOwners local, EventSink events) {
    /**
     * The services of one client: its local cohorts started on {@code timer}, its hold table (and so its renewer)
     * reporting to the new event sink.
     */
    public static LockServices create(LockSettings settings, LockClock clock, LockRedis redis, HoldTable holds,
                                      Acquisitions acquisitions, TaskScheduler timer) {
        LocalCohorts cohorts = new LocalCohorts(timer, clock.monotonic(),
                TimeUnit.MILLISECONDS.toNanos(Math.max(1, settings.watchdogMs() / 3)), settings.maxLocalHandoffs(),
                HeadStart.OTHER_CLIENTS_NANOS,
                (key, field) -> redis.commands().hexists(key, field).toCompletableFuture());
        cohorts.start();
        EventSink events = new EventSink();
        holds.reportTo(events);
        return new LockServices(settings, clock, redis, holds, acquisitions,
                new LocalOwners(cohorts, new GroupTurns(redis.wakeups()), timer), events);
    }

    /** @return the lost-reply rule over {@link #holds}, for every lock kind (stateless: the books are the table's) */
    PendingAcquisitions pending() {
        return new PendingAcquisitions(holds);
    }

    /** @return what this client knows of its own owners' exclusive holds and waits ({@link LocalCohort}) */
    LocalCohorts cohorts() {
        return local.cohorts();
    }

    void register(AcquireLoop loop) {
        acquisitions.register(loop);
    }

    void checkOpen(String lockName) {
        acquisitions.checkOpen("lock", lockName);
    }

    /** @return acquisitions currently waiting or attempting (every kind of the client) */
    public int waitingCount() {
        return acquisitions.waitingCount();
    }

    /** @return lock names with local knowledge ({@link LocalCohort}) */
    public int localCohortCount() {
        return cohorts().size();
    }

    /** @return owners queued inside this client behind another of its owners on {@code lockName} */
    public int localWaiters(String lockName) {
        LocalCohort cohort = cohorts().find(lockName);
        return cohort == null ? 0 : cohort.waiterCount();
    }

    /**
     * A message arrived on a subscribed channel (on the I/O thread): owners of this client waiting behind a local
     * holder of that lock have it checked in Redis at once ({@link LocalCohorts#unlockMessage}). Never blocks.
     */
    public void unlockMessage(String channel) {
        cohorts().unlockMessage(channel);
    }

    /** Stops the local cohorts' timers; the acquisitions are failed and drained by {@link Acquisitions#close}. */
    public void close() {
        cohorts().close();
    }
}
