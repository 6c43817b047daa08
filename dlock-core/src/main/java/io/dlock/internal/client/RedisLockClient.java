package io.dlock.internal.client;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.DistributedSemaphore;
import io.dlock.FencedLock;
import io.dlock.HeldLock;
import io.dlock.LatchInfo;
import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockEventListener;
import io.dlock.LockException;
import io.dlock.LockInfo;
import io.dlock.MultiLock;
import io.dlock.SemaphoreInfo;
import io.dlock.UnsupportedServerException;
import io.dlock.internal.LockNames;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.LoopWaiting;
import io.dlock.internal.acquire.Outage;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.LeaderInfo;
import io.dlock.LeaderObserver;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.card.CardKeeper;
import io.dlock.internal.card.CardReader;
import io.dlock.internal.election.FencedLeaderElection;
import io.dlock.internal.election.LeaderObservers;
import io.dlock.internal.election.LeaderReader;
import io.dlock.internal.lock.ElectionLock;
import io.dlock.internal.events.EventSink;
import io.dlock.internal.latch.LatchServices;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.LeaseRenewer;
import io.dlock.internal.lease.NonBlockingTimer;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.parts.ClientClock;
import io.dlock.internal.lock.LockRedis;
import io.dlock.internal.lock.LockServices;
import io.dlock.internal.lock.LockSettings;
import io.dlock.internal.lock.RedisLocks;
import io.dlock.internal.lock.ReplicaSync;
import io.dlock.internal.multilock.RedisMultiLock;
import io.dlock.internal.parts.ClientParts;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.semaphore.RedisLeasedSemaphore;
import io.dlock.internal.semaphore.RedisSemaphore;
import io.dlock.internal.semaphore.SemaphoreInspector;
import io.dlock.internal.semaphore.SemaphoreServices;
import io.dlock.internal.transport.AnswerWatch;
import io.dlock.internal.transport.RedisTransport;
import io.dlock.internal.wakeup.WakeupHub;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link LockClient}: the connections of a {@link RedisTransport} (standalone, Sentinel or Cluster), one timer
 * thread and an executor, shared by every lock it hands out.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>Lettuce's I/O threads complete Redis replies and deliver pub/sub messages. Code running there only updates
 *       in-memory state, completes internal futures and sends further async commands; it never blocks or runs user
 *       code.</li>
 *   <li>The timer thread ({@code dlock-timer}) runs renewal ticks and waiter timeouts.</li>
 *   <li>The executor completes the futures handed to users and runs {@link LeaseLostListener}s.</li>
 * </ul>
 *
 * <p>Design notes of the lock itself: {@link RedisLocks} and the protocols it names; renewal: {@link LeaseRenewer}; wake-ups:
 * {@link WakeupHub}.
 */
public final class RedisLockClient implements LockClient {
    private static final Logger log = LoggerFactory.getLogger(RedisLockClient.class);

    private final String id = UUID.randomUUID().toString();
    private final LockClientConfig config;
    private final RedisTransport transport;
    private final NonBlockingTimer timer;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final WakeupHub wakeups;
    private final LockServices services;
    /** The watchdog: only this class builds, starts and closes it. */
    private final LeaseRenewer renewer;
    /** Keeps this client's card (who it is) in Redis: written at connect, then with the watchdog's rounds. */
    private final CardKeeper card;
    /** Everything in flight of every kind (the one close rule), how loops wait and how sync calls block. */
    private final Acquisitions acquisitions;
    /** What the client's semaphores share (their scripts, wake-ups and permit watchdog). */
    private final SemaphoreServices semaphores;
    private final Snapshots snapshots;
    private final LatchServices latches;
    private final List<LeaseLostListener> listeners = new CopyOnWriteArrayList<>();
    /** The leader elections made by this client and not closed: closing the client closes them first. */
    private final java.util.Set<FencedLeaderElection> elections = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Who leads elections: read once ({@code inspectLeader}) or observed ({@code observeLeader}, candidates). */
    private final LeaderReader leaderReader;
    private final LeaderObservers leaderObservers;

    private RedisLockClient(LockClientConfig config, RedisTransport transport) {
        this.config = config;
        this.transport = transport;
        ClientClock clock = ClientClock.system();
        this.timer = new NonBlockingTimer(daemonThreads("dlock-timer"), clock.monotonic());
        this.ownedExecutor = config.executor().isPresent() ? null
                : Executors.newCachedThreadPool(daemonThreads("dlock-callback"));
        this.executor = config.executor().orElse(ownedExecutor);
        TaskScheduler scheduler = timer;
        this.wakeups = new WakeupHub(transport.pubSub(), scheduler);
        long watchdogMs = config.watchdogTimeout().toMillis();
        AnswerWatch answers = new AnswerWatch(clock.monotonic(), config.commandTimeout(), transport::connected);
        ScriptRunner scripts = new ScriptRunner(transport.commands(), answers);
        HoldTable holds = new HoldTable(watchdogMs, scheduler, clock.monotonic(), clock.wall(),
                this::dispatchLeaseLost);
        this.card = new CardKeeper(scripts, identity(), clock.epochMillis(), watchdogMs);
        this.renewer = new LeaseRenewer(holds, scheduler, transport::slot, card::refresh);
        ReplicaSync replicaSync = config.syncReplicas() == 0 ? ReplicaSync.off()
                : new ReplicaSync(config.syncReplicas(), config.syncReplicasTimeout().toMillis(),
                        transport::waitForReplicas);
        this.acquisitions = new Acquisitions(new LoopWaiting(wakeups, clock.monotonic(), watchdogMs,
                new Outage(scheduler, answers::unavailable)),
                new SyncWaits(config.tuning().spinWait().toNanos(), clock.monotonic()), executor, new EventSink());
        // a hand-off is not confirmed on replicas: with syncReplicas every grant goes through the acquire path
        int localHandoffs = config.syncReplicas() > 0 ? 0 : config.tuning().localHandoffs();
        ClientParts parts = new ClientParts(
                new ClientParts.Settings(id, watchdogMs, config.commandTimeout().toMillis(), localHandoffs),
                acquisitions, new ClientParts.Redis(transport.commands(), scripts, wakeups, transport.publishCommand(),
                        transport::slot, transport.serverRuns()), scheduler, clock);
        this.services = new LockServices(parts, new LockSettings(id, watchdogMs,
                config.fairLockWaitTimeout().toMillis(), transport.publishCommand(), localHandoffs, config.holdDetails()),
                LockRedis.of(transport.commands(), scripts, wakeups, replicaSync, config.holdDetails()), holds);
        this.latches = new LatchServices(parts);
        this.semaphores = new SemaphoreServices(parts, this::dispatchLeaseLost);
        this.leaderReader = new LeaderReader(scripts);
        this.leaderObservers = new LeaderObservers(leaderReader, wakeups, scheduler, executor);
        this.snapshots = new Snapshots(
                new LockInspector(scripts, new CardReader(transport.commands()), transport.commands()),
                new SemaphoreInspector(scripts), latches, executor,
                acquisitions.waits(), this::checkOpen, acquisitions::isClosed, this::checkSlots);
        transport.listen(new RedisTransport.Listener() {
            @Override
            public void message(String channel, String message) {
                latches.message(channel, message); // before the wake-up: the check it causes must see it
                wakeups.onMessage(channel, message);
                services.unlockMessage(channel);
                semaphores.message(channel, message);
                leaderObservers.message(channel);
            }

            @Override
            public void resubscribed() {
                // Messages published while the subscriptions were down are lost: let every waiter try again.
                wakeups.wakeEverybody();
                semaphores.resubscribed();
                leaderObservers.resubscribed();
            }
        });
        awaitCard(card.start(), config);
        renewer.start();
        semaphores.start();
    }

    /**
     * Connects to the Redis deployment of {@code config} (standalone, Sentinel or Cluster) and checks it
     * ({@link ClientStart#connect}); blocks until connected or the command timeout passed. The API's one edge into the
     * internals ({@code LockClient.create}).
     *
     * @throws IllegalArgumentException when the URI is not valid
     * @throws io.dlock.ConnectionFailedException when Redis cannot be reached, refuses the credentials, the TLS
     *                                  handshake fails or the user may not use the lock channels; its reason says which
     * @throws UnsupportedServerException when the server is older than dlock supports
     */
    public static LockClient start(LockClientConfig config) {
        return new RedisLockClient(config, ClientStart.connect(config));
    }

    /**
     * Waits (at most about a command timeout) until the card's first write is answered, so that a lock taken right
     * after {@code create} returns shows its holder's identity; its failure is the card's own (logged there).
     */
    private static void awaitCard(CompletableFuture<Void> written, LockClientConfig config) {
        try {
            written.get(config.commandTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("this client's card is not written yet: {}", e.toString());
        }
    }

    private void dispatchLeaseLost(LeaseLostEvent event) {
        try {
            executor.execute(() -> {
                for (LeaseLostListener listener : listeners) {
                    try {
                        listener.leaseLost(event);
                    } catch (RuntimeException e) {
                        log.error("LeaseLostListener {} failed for {}", listener, event, e);
                    }
                }
            });
        } catch (RuntimeException e) {
            log.error("cannot dispatch {}", event, e);
        }
    }

    /**
     * On a cluster, every key and channel of a lock must hash to the lock's slot: a name with a '{' that does not
     * open a hash tag ({@code a{b}, {@code a{}b}) would fail every script with CROSSSLOT, so it is refused here.
     */
    private void checkSlots(String name) {
        if (name != null && transport.slot(name) != transport.slot(LockNames.lockChannel(name))) {
            throw new IllegalArgumentException("lock name '" + name + "' cannot be used on a Redis Cluster: its '{' "
                    + "opens no hash tag '{…}', so the lock's keys would hash to different slots");
        }
    }

    private void checkOpen() {
        if (acquisitions.isClosed()) {
            throw new LockException("the lock client is closed");
        }
    }

    @Override
    public DistributedLock getLock(String name) {
        checkOpen();
        checkSlots(name);
        return RedisLocks.plain(services, name);
    }

    @Override
    public DistributedLock getFairLock(String name) {
        checkOpen();
        LockNames.requireOwnAuxiliaryKeys(name, "fair lock");
        checkSlots(name);
        return RedisLocks.fair(services, name);
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name) {
        checkOpen();
        LockNames.requireOwnAuxiliaryKeys(name, "read-write lock");
        checkSlots(name);
        return RedisLocks.readWrite(services, name);
    }

    @Override
    public FencedLock getFencedLock(String name) {
        checkOpen();
        checkSlots(name);
        return RedisLocks.fenced(services, name);
    }

    @Override
    public LeaderElection getLeaderElection(String name, LeaderElectionSettings settings) {
        java.util.Objects.requireNonNull(settings, "settings");
        checkOpen();
        checkSlots(name);
        ElectionLock lock = RedisLocks.election(services, name, identity(), newOwner());
        FencedLeaderElection[] made = new FencedLeaderElection[1];
        made[0] = new FencedLeaderElection(name, lock, settings, services.clock().monotonic(), services.clock().wall(),
                config.commandTimeout(), () -> elections.remove(made[0]), services.events(),
                observer -> leaderObservers.observe(name, observer));
        elections.add(made[0]);
        return made[0];
    }

    @Override
    public Optional<LeaderInfo> inspectLeader(String name) {
        return acquisitions.waits().awaitUninterruptibly(inspectLeaderAsync(name), "leader election", name,
                "inspectLeader");
    }

    @Override
    public CompletableFuture<Optional<LeaderInfo>> inspectLeaderAsync(String name) {
        LockNames.requireValid(name);
        checkSlots(name);
        if (acquisitions.isClosed()) {
            return CompletableFuture.failedFuture(new LockException(name, "leader election '" + name
                    + "': the lock client is closed", null));
        }
        return Callers.toCaller(executor, null, null, leaderReader.read(name), Errors::unwrap);
    }

    @Override
    public LeaderObserver.Subscription observeLeader(String name, LeaderObserver observer) {
        java.util.Objects.requireNonNull(observer, "observer");
        LockNames.requireValid(name);
        checkOpen();
        checkSlots(name);
        return leaderObservers.observe(name, observer);
    }

    @Override
    public DistributedCountDownLatch getCountDownLatch(String name) {
        checkOpen();
        return latches.latch(name);
    }

    @Override
    public MultiLock getMultiLock(java.util.Collection<? extends DistributedLock> locks) {
        checkOpen();
        java.util.Objects.requireNonNull(locks, "locks");
        return RedisMultiLock.of(id, new ArrayList<>(locks), acquisitions);
    }

    @Override
    public DistributedSemaphore getSemaphore(String name) {
        checkOpen();
        LockNames.requireValid(name);
        checkSlots(name);
        return new RedisSemaphore(semaphores, name);
    }

    @Override
    public LeasedSemaphore getLeasedSemaphore(String name) {
        checkOpen();
        LockNames.requireOwnAuxiliaryKeys(name, "leased semaphore");
        checkSlots(name);
        return new RedisLeasedSemaphore(semaphores, name);
    }

    @Override
    public LockInfo inspect(String name) {
        return snapshots.inspect(name);
    }

    @Override
    public CompletableFuture<LockInfo> inspectAsync(String name) {
        return snapshots.inspectAsync(name);
    }

    @Override
    public SemaphoreInfo inspectSemaphore(String name) {
        return snapshots.inspectSemaphore(name);
    }

    @Override
    public CompletableFuture<SemaphoreInfo> inspectSemaphoreAsync(String name) {
        return snapshots.inspectSemaphoreAsync(name);
    }

    @Override
    public LatchInfo inspectCountDownLatch(String name) {
        return snapshots.inspectCountDownLatch(name);
    }

    @Override
    public CompletableFuture<LatchInfo> inspectCountDownLatchAsync(String name) {
        return snapshots.inspectCountDownLatchAsync(name);
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public io.dlock.ClientIdentity identity() {
        return LocalProcess.identity(id, config.applicationName());
    }

    @Override
    public void addLeaseLostListener(LeaseLostListener listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeLeaseLostListener(LeaseLostListener listener) {
        listeners.remove(listener);
    }

    @Override
    public void addEventListener(LockEventListener listener) {
        services.events().add(listener);
    }

    @Override
    public void removeEventListener(LockEventListener listener) {
        services.events().remove(listener);
    }

    @Override
    public List<HeldLock> heldLocks() {
        if (acquisitions.isClosed()) {
            return List.of();
        }
        List<HeldLock> held = new ArrayList<>();
        long now = services.clock().nanoTime();
        for (Hold hold : services.holds().validHolds()) {
            long validNanos = hold.validForNanos(now);
            int count = hold.acquisitions();
            if (validNanos > 0 && count > 0) {
                held.add(new HeldLock(hold.lockName(), hold.kind(), hold.ownerId(), count,
                        Duration.ofNanos(validNanos), hold.watchdogRenewed()));
            }
        }
        return held;
    }

    /** @return what the client is doing now (for tests and inspection) */
    public Diagnostics diagnostics() {
        return new Diagnostics(services.holds().renewedCount(), services.holds().trackedCount(),
                wakeups.subscriptionCount(), services.waitingCount(), services.localCohortCount());
    }

    /** @return count-down latch awaits now waiting (for tests) */
    public int latchWaitingCount() {
        return latches.waitingCount();
    }

    /** @return acquisitions of permits (of both semaphores) now under way, and leased permits held (for tests) */
    public int[] semaphoreActivity() {
        return new int[] {acquisitions.waitingCount(kind -> kind.endsWith("semaphore")), semaphores.heldPermitCount()};
    }

    /** @return how many owners of this client wait inside it behind another of its owners on {@code lockName} */
    public int localWaiters(String lockName) {
        return services.localWaiters(lockName);
    }

    @Override
    public LockClientConfig config() {
        return config;
    }

    @Override
    public void close() {
        // elections first: each ends its term, stops its task and releases its lock while the connections are open
        for (FencedLeaderElection election : List.copyOf(elections)) {
            election.close();
        }
        leaderObservers.close();
        if (!acquisitions.closeDoor()) {
            return;
        }
        renewer.close();
        CompletableFuture<Void> cardRemoved = card.close();
        semaphores.close();
        services.close();
        CompletableFuture<Void> waitersDone = acquisitions.close().thenCombine(cardRemoved, (a, b) -> null);
        try {
            // what failed waiters leave to clean up (a fair waiter's queue entry, a grant their in-flight attempt
            // brings, an unanswered attempt's possible take) goes out and is answered before the connections close:
            // an attempt in flight answers within a command timeout, and its give-back within another; so does the
            // card's removal, after the card's last write
            waitersDone.get(2 * config.commandTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("closing with waiters still cleaning up: {}", e.toString());
        }
        transport.close();
        timer.close();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
    }

    @Override
    public String toString() {
        return "LockClient{" + id + " @ " + transport.describe() + "}";
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
