package io.dlock.internal.lock;

import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.HeadStart;
import io.dlock.internal.acquire.PendingAcquisitions;
import io.dlock.internal.events.EventSink;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.parts.ClientClock;
import io.dlock.internal.parts.ClientParts;

import java.util.concurrent.TimeUnit;

/**
 * What every lock of one client shares: the client's shared parts ({@link ClientParts}: the front door, the clock,
 * Redis, the timer) plus the locks' own: their settings, their Redis calls (replica confirmation, renewal senders),
 * the hold table (the one front door of a hold's life: granted, releasing, released, lost; the renewer works behind
 * it, unseen by the locks), and the local owners. Locks are small objects composed over these; they hold no
 * state of their own besides their name. Thread-safe; every accessor is a plain field read.
 */
public final class LockServices {
    private final LockSettings settings;
    private final ClientClock clock;
    private final LockRedis redis;
    private final HoldTable holds;
    private final Acquisitions acquisitions;
    private final LocalOwners local;

    /**
     * The services of one client: its local cohorts started on the parts' timer, its hold table (and so its renewer)
     * reporting to the client's event sink.
     *
     * @param parts    the client's shared parts
     * @param settings the client's id and the settings the lock kinds read
     * @param redis    commands, scripts, wake-ups, replica confirmation, renewal senders
     * @param holds    the client's hold table
     */
    public LockServices(ClientParts parts, LockSettings settings, LockRedis redis, HoldTable holds) {
        this.settings = settings;
        this.clock = parts.clock();
        this.redis = redis;
        this.holds = holds;
        this.acquisitions = parts.acquisitions();
        LocalCohorts cohorts = new LocalCohorts(parts.timer(), clock.monotonic(),
                TimeUnit.MILLISECONDS.toNanos(Math.max(1, settings.watchdogMs() / 3)), settings.maxLocalHandoffs(),
                HeadStart.OTHER_CLIENTS_NANOS,
                (key, field) -> redis.commands().hexists(key, field).toCompletableFuture());
        cohorts.start();
        holds.reportTo(acquisitions.events());
        this.local = new LocalOwners(cohorts, new GroupTurns(redis.wakeups()), parts.timer());
    }

    /** @return the client's id and the settings the kinds read */
    public LockSettings settings() {
        return settings;
    }

    /** @return the client's one clock: monotonic (every wait and lease) and wall */
    public ClientClock clock() {
        return clock;
    }

    /** @return commands, scripts, wake-ups, replica confirmation, renewal senders */
    public LockRedis redis() {
        return redis;
    }

    /**
     * @return everything this client knows about its holds and waits, and the front door of a hold's life (the table
     *         the renewer walks)
     */
    public HoldTable holds() {
        return holds;
    }

    /**
     * @return the front door of every acquisition (every kind of the client): the closed flag, the registered
     *         loops, how they wait, the sync waits, the callers' executor, the event listeners, close
     */
    public Acquisitions acquisitions() {
        return acquisitions;
    }

    /** @return what the client knows of its own owners' exclusive holds and waits */
    public LocalOwners local() {
        return local;
    }

    /** @return where locks, the hold table and the renewer report events: the client's lock event listeners */
    public EventSink events() {
        return acquisitions.events();
    }

    /** @return the lost-reply rule over {@link #holds}, for every lock kind (stateless: the books are the table's) */
    PendingAcquisitions pending() {
        return new PendingAcquisitions(holds);
    }

    /** @return what this client knows of its own owners' exclusive holds and waits ({@link LocalCohort}) */
    LocalCohorts cohorts() {
        return local.cohorts();
    }

    /** @throws io.dlock.LockException naming the lock when the client is closed */
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
