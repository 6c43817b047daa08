package io.dlock.internal.lock;

import io.dlock.internal.acquire.LoopWaiting;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.PendingAcquisitions;
import io.dlock.internal.acquire.SyncWaits;

import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.LeaseRenewer;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.events.EventSink;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.wakeup.WakeupHub;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * What every lock of one client shares: its id, Redis commands, script runner, wake-up hub, lease renewer and
 * executor. Locks are small objects composed over these; they hold no state of their own besides their name.
 */
public final class LockServices {
    final String clientId;
    final RedisClusterAsyncCommands<String, String> redis;
    final ScriptRunner scripts;
    final WakeupHub wakeups;
    final LeaseRenewer renewer;
    final Executor executor;
    final String publishCommand;
    final HashFieldRenewal hashFieldRenewal;
    /** Renews read holds of read-write locks (one sender per client, so they are renewed in one batch). */
    final ReadHoldRenewal readHoldRenewal;
    /** A fair-lock waiter's slot when the caller gives no wait time (ms). */
    final long fairLockWaitMs;
    /** Wall clock for epoch-ms arguments that Redisson's scripts expect (fair-lock deadlines). */
    final Clock clock;
    /** Confirms acquisitions on replicas ({@code syncReplicas}), or does nothing. */
    final ReplicaSync replicaSync;
    /** How acquisitions wait: wake-ups, the monotonic clock, the longest sleep, the pacing of retries in outages. */
    final LoopWaiting loopWaiting;
    /**
     * How long a client's owners hold back after a release whose unlock message reached other clients' waiters, so
     * that one of those (which must first receive the message, wake and send its attempt) gets the lock rather than
     * an owner of this client that is awake and next in line ({@link LocalCohort}). Costs nothing when nobody else
     * waits; when others wait, it ends at the next unlock message (another client had the lock and let go already),
     * so it runs its full length only when the woken waiters do not take the lock.
     */
    static final long OTHER_CLIENTS_HEAD_START_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** What this client knows of its own owners' exclusive holds and waits ({@link LocalCohort}). */
    final LocalCohorts cohorts;
    /** Blocking waits of the sync API (spin-then-park). */
    final SyncWaits waits;
    /** Everything in flight of the client, every kind: registered loops, close (the one close rule). */
    final Acquisitions acquisitions;
    /** Everything this client knows about its holds (the renewer's table). */
    final HoldTable holds;
    /** The lost-reply rule over {@link #holds}, for every lock kind. */
    final PendingAcquisitions pending;
    /** The client's timer. */
    final TaskScheduler scheduler;
    /** Owners of this client waiting for the same plain locks in one script take turns ({@link PlainLockGroup}). */
    final GroupTurns groupTurns = new GroupTurns();
    /** Where locks and the renewer report events: the client's lock event listeners (none at first). */
    final EventSink events = new EventSink();

    /**
     * @param publishCommand the scripts' publish command: {@code "publish"}, {@code "spublish"} or {@code "both"}
     * @param scheduler      the client's timer (retry pauses during outages)
     * @param acquisitions   the client's registry of what is in flight, its loops' waiting and its sync waits
     * @param maxLocalHandoffs the most hand-offs of an exclusive lock between this client's owners in a row
     */
    public LockServices(String clientId, RedisClusterAsyncCommands<String, String> redis, ScriptRunner scripts,
                        WakeupHub wakeups, LeaseRenewer renewer, Executor executor, String publishCommand,
                        long fairLockWaitMs, Clock clock, TaskScheduler scheduler, ReplicaSync replicaSync,
                        Acquisitions acquisitions, int maxLocalHandoffs) {
        this.clientId = clientId;
        this.redis = redis;
        this.scripts = scripts;
        this.wakeups = wakeups;
        this.renewer = renewer;
        this.holds = renewer.holds();
        this.pending = new PendingAcquisitions(holds);
        this.scheduler = scheduler;
        this.executor = executor;
        this.publishCommand = publishCommand;
        this.hashFieldRenewal = new HashFieldRenewal(scripts);
        this.readHoldRenewal = new ReadHoldRenewal(scripts);
        this.fairLockWaitMs = fairLockWaitMs;
        this.clock = clock;
        this.replicaSync = replicaSync;
        this.acquisitions = acquisitions;
        this.loopWaiting = acquisitions.waiting();
        this.waits = acquisitions.waits();
        this.cohorts = new LocalCohorts(scheduler, renewer::nanoTime,
                TimeUnit.MILLISECONDS.toNanos(Math.max(1, renewer.watchdogMs() / 3)),
                maxLocalHandoffs, OTHER_CLIENTS_HEAD_START_NANOS, (key, field) -> redis.hexists(key, field).toCompletableFuture());
        this.cohorts.start();
        renewer.reportTo(events);
    }

    /** @return where this client's locks and renewer report events */
    public EventSink events() {
        return events;
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
        return cohorts.size();
    }

    /** @return owners queued inside this client behind another of its owners on {@code lockName} */
    public int localWaiters(String lockName) {
        LocalCohort cohort = cohorts.find(lockName);
        return cohort == null ? 0 : cohort.waiterCount();
    }

    /**
     * A message arrived on a subscribed channel (on the I/O thread): owners of this client waiting behind a local
     * holder of that lock have it checked in Redis at once ({@link LocalCohorts#unlockMessage}). Never blocks.
     */
    public void unlockMessage(String channel) {
        cohorts.unlockMessage(channel);
    }

    /** Stops the local cohorts' timers; the acquisitions are failed and drained by {@link Acquisitions#close}. */
    public void close() {
        cohorts.close();
    }
}
