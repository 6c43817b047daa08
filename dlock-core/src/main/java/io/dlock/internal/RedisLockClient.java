package io.dlock.internal;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.FencedLock;
import io.dlock.HeldLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockEventListener;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.UnsupportedServerException;
import io.dlock.LockInfo;
import io.dlock.LatchInfo;
import io.dlock.SemaphoreInfo;
import io.dlock.MultiLock;
import io.dlock.internal.multilock.RedisMultiLock;
import io.dlock.internal.latch.LatchServices;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.LeaseRenewer;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.lock.LockServices;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.Outage;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.internal.lock.RedisLocks;
import io.dlock.internal.lock.ReplicaSync;
import io.dlock.internal.semaphore.RedisLeasedSemaphore;
import io.dlock.internal.semaphore.RedisSemaphore;
import io.dlock.internal.semaphore.SemaphoreInspector;
import io.dlock.internal.semaphore.SemaphoreServices;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.transport.Endpoint;
import io.dlock.internal.transport.RedisTransport;
import io.dlock.internal.transport.ServerVersion;
import io.dlock.internal.wakeup.WakeupHub;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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
    private final ScheduledThreadPoolExecutor timer;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final WakeupHub wakeups;
    private final LeaseRenewer renewer;
    private final LockServices services;
    /** Everything in flight of every kind (the one close rule), how loops wait and how sync calls block. */
    private final Acquisitions acquisitions;
    /** What the client's semaphores share (their scripts, wake-ups and permit watchdog). */
    private final SemaphoreServices semaphores;
    private final LockInspector inspector;
    private final SemaphoreInspector semaphoreInspector;
    private final LatchServices latches;
    private final List<LeaseLostListener> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private RedisLockClient(LockClientConfig config, RedisTransport transport) {
        this.config = config;
        this.transport = transport;
        this.timer = new ScheduledThreadPoolExecutor(1, daemonThreads("dlock-timer"));
        this.timer.setRemoveOnCancelPolicy(true);
        this.ownedExecutor = config.executor().isPresent() ? null
                : Executors.newCachedThreadPool(daemonThreads("dlock-callback"));
        this.executor = config.executor().orElse(ownedExecutor);
        TaskScheduler scheduler = TaskScheduler.of(timer);
        this.wakeups = new WakeupHub(transport.pubSub(), scheduler);
        ScriptRunner scripts = new ScriptRunner(transport.commands());
        long watchdogMs = config.watchdogTimeout().toMillis();
        this.renewer = new LeaseRenewer(watchdogMs, scheduler, System::nanoTime, Clock.systemUTC(),
                this::dispatchLeaseLost, transport::slot);
        ReplicaSync replicaSync = config.syncReplicas() == 0 ? ReplicaSync.off()
                : new ReplicaSync(config.syncReplicas(), config.syncReplicasTimeout().toMillis(),
                        transport::waitForReplicas);
        this.acquisitions = new Acquisitions(new AcquireLoop.Waiting(wakeups, renewer::nanoTime, watchdogMs,
                new Outage(scheduler)), new SyncWaits(config.tuning().spinWait().toNanos()));
        this.services = new LockServices(id, transport.commands(), scripts, wakeups, renewer, executor,
                transport.publishCommand(), config.fairLockWaitTimeout().toMillis(), Clock.systemUTC(), scheduler,
                replicaSync, acquisitions,
                // a hand-off is not confirmed on replicas: with syncReplicas every grant goes through the acquire path
                config.syncReplicas() > 0 ? 0 : config.tuning().localHandoffs());
        this.inspector = new LockInspector(scripts);
        this.semaphoreInspector = new SemaphoreInspector(scripts);
        this.latches = new LatchServices(scripts, wakeups, executor, renewer::nanoTime, transport.publishCommand(),
                transport::slot, watchdogMs / 3, services.events()::get, transport.serverRuns(), acquisitions);
        this.semaphores = new SemaphoreServices(transport.commands(), scripts, acquisitions, scheduler, executor,
                transport.publishCommand(), DistributedSemaphore.RECHECK_INTERVAL.toMillis(),
                grantMarkMillis(config.commandTimeout().toMillis()), watchdogMs, Clock.systemUTC(),
                this::dispatchLeaseLost, services.events()::get);
        transport.listen(new RedisTransport.Listener() {
            @Override
            public void message(String channel, String message) {
                latches.message(channel, message); // before the wake-up: the check it causes must see it
                wakeups.onMessage(channel, message);
                services.unlockMessage(channel);
            }

            @Override
            public void resubscribed() {
                // Messages published while the subscriptions were down are lost: let every waiter try again.
                wakeups.wakeEverybody();
            }
        });
        renewer.start();
        semaphores.start();
    }

    /**
     * Connects to the Redis deployment of {@code config} (standalone, Sentinel or Cluster); blocks until connected or
     * the command timeout passed.
     *
     * @throws IllegalArgumentException when the URI is not valid
     * @throws io.dlock.ConnectionFailedException when Redis cannot be reached, refuses the credentials, the TLS
     *                                  handshake fails or the user may not use the lock channels
     *                                  ({@link ChannelPermissionProbe}); its reason says which
     * @throws UnsupportedServerException when the server is older than {@link ServerVersion#MINIMUM}
     */
    public static LockClient start(LockClientConfig config) {
        Endpoint endpoint = Endpoint.of(config);
        RedisTransport transport;
        try {
            transport = RedisTransport.open(config, endpoint);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw ConnectFailures.failure(endpoint.description(), e, endpoint.isTls(), null, endpoint::scrub);
        }
        try {
            requireSupportedServer(transport, config, endpoint);
            ChannelPermissionProbe.check(transport, config, endpoint);
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        return new RedisLockClient(config, transport);
    }

    /**
     * Refuses a server older than {@link ServerVersion#MINIMUM} (on a cluster: the node that answers {@code INFO}),
     * before any lock is used. A user whose ACL rule denies {@code INFO}, or a server where {@code INFO} is renamed or
     * disabled ({@code rename-command INFO ""}), skips the check (logged as a warning).
     *
     * @throws LockException naming the server's version and the minimum, or when {@code INFO} fails otherwise
     */
    private static void requireSupportedServer(RedisTransport transport, LockClientConfig config,
                                               Endpoint endpoint) {
        String where = transport.describe();
        String info;
        try {
            info = transport.commands().info("server").toCompletableFuture()
                    .get(config.commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while connecting to Redis at " + where, e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = Errors.unwrap(e);
            String message = String.valueOf(cause.getMessage());
            if (message.startsWith("NOPERM")) {
                log.warn("cannot check the version of Redis at {}: this user may not run INFO ({}); dlock needs "
                        + "Redis {} or later", where, message, ServerVersion.MINIMUM_TEXT);
                return;
            }
            if (message.startsWith("ERR unknown command")) {
                log.warn("cannot check the version of Redis at {}: INFO is renamed or disabled on this server ({}); "
                        + "dlock needs Redis {} or later", where, endpoint.scrub(message), ServerVersion.MINIMUM_TEXT);
                return;
            }
            throw ConnectFailures.failure(where, cause, endpoint.isTls(), "INFO failed", endpoint::scrub);
        }
        ServerVersion version = ServerVersion.fromInfo(info).orElseThrow(() -> new LockException(
                "Redis at " + where + " reports no redis_version in INFO; dlock needs Redis "
                        + ServerVersion.MINIMUM_TEXT + " or later"));
        if (!version.isSupported()) {
            throw new UnsupportedServerException("Redis at " + where + " is version " + version + ", older than "
                    + ServerVersion.MINIMUM_TEXT + ", the oldest that dlock supports (its lock scripts need "
                    + "commands that older servers lack)");
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
        if (closed) {
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
    public DistributedCountDownLatch getCountDownLatch(String name) {
        checkOpen();
        return latches.latch(name);
    }

    @Override
    public MultiLock getMultiLock(java.util.Collection<? extends DistributedLock> locks) {
        checkOpen();
        java.util.Objects.requireNonNull(locks, "locks");
        return RedisMultiLock.of(id, new ArrayList<>(locks));
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
        LockNames.requireValid(name);
        checkOpen();
        try {
            return inspector.inspect(name).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(name, "lock '" + name + "': inspect interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw Errors.toApi(e, name, "inspect");
        }
    }

    @Override
    public CompletableFuture<LockInfo> inspectAsync(String name) {
        LockNames.requireValid(name);
        if (closed) {
            return CompletableFuture.failedFuture(new LockException("the lock client is closed"));
        }
        CompletableFuture<LockInfo> reply;
        try {
            reply = inspector.inspect(name);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<LockInfo> result = new CompletableFuture<>();
        reply.whenCompleteAsync((info, error) -> {
            if (error != null) {
                result.completeExceptionally(Errors.toApi(error, name, "inspect"));
            } else {
                result.complete(info);
            }
        }, executor);
        return result;
    }

    @Override
    public SemaphoreInfo inspectSemaphore(String name) {
        return awaitSnapshot(inspectSemaphoreAsync(name), name, "semaphore");
    }

    @Override
    public CompletableFuture<SemaphoreInfo> inspectSemaphoreAsync(String name) {
        LockNames.requireValid(name);
        checkSlots(name);
        if (closed) {
            return CompletableFuture.failedFuture(new LockException(name, "semaphore '" + name
                    + "': the lock client is closed", null));
        }
        return onExecutor(semaphoreInspector.inspect(name));
    }

    @Override
    public LatchInfo inspectCountDownLatch(String name) {
        return awaitSnapshot(inspectCountDownLatchAsync(name), name, "count-down latch");
    }

    @Override
    public CompletableFuture<LatchInfo> inspectCountDownLatchAsync(String name) {
        LockNames.requireValid(name);
        if (closed) {
            return CompletableFuture.failedFuture(new LockException(name, "count-down latch '" + name
                    + "': the lock client is closed", null));
        }
        return onExecutor(latches.inspect(name));
    }

    /** {@code reply}'s outcome (already in the API's exceptions) on a new future completed on the executor. */
    private <T> CompletableFuture<T> onExecutor(CompletableFuture<T> reply) {
        return Callers.toCaller(executor, null, null, reply, Errors::unwrap);
    }

    /** Waits for a snapshot, uninterruptibly for its one round trip (the interrupt flag is kept). */
    private <T> T awaitSnapshot(CompletableFuture<T> future, String name, String kind) {
        return acquisitions.waits().awaitUninterruptibly(future, kind, name, "inspect");
    }

    @Override
    public String getId() {
        return id;
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
        if (closed) {
            return List.of();
        }
        long now = renewer.nanoTime();
        List<HeldLock> held = new ArrayList<>();
        for (Hold hold : renewer.validHolds()) {
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
        return new Diagnostics(renewer.renewedCount(), renewer.trackedCount(), wakeups.subscriptionCount(),
                services.waitingCount(), services.localCohortCount());
    }

    /** @return count-down latch awaits now waiting (for tests) */
    public int latchWaitingCount() {
        return latches.waitingCount();
    }

    /** @return acquisitions of semaphores now waiting, and leased permits held (for tests and inspection) */
    public int[] semaphoreActivity() {
        return new int[] {acquisitions.waitingCount(), semaphores.heldPermitCount()};
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
        if (closed) {
            return;
        }
        closed = true;
        renewer.close();
        semaphores.close();
        services.close();
        CompletableFuture<Void> waitersDone = acquisitions.close();
        try {
            // what failed waiters leave to clean up (a fair waiter's queue entry, a grant their in-flight attempt
            // brings, an unanswered attempt's possible take) goes out and is answered before the connections close:
            // an attempt in flight answers within a command timeout, and its give-back within another
            waitersDone.get(2 * config.commandTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("closing with waiters still cleaning up: {}", e.toString());
        }
        transport.close();
        timer.shutdownNow();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
    }

    @Override
    public String toString() {
        return "LockClient{" + id + " @ " + transport.describe() + "}";
    }

    /**
     * How long a plain semaphore's grant mark lives: long enough that the give-back of an attempt whose reply was lost
     * (sent at once, after a command timeout or a reconnect) finds it; short enough that marks do not pile up.
     */
    static long grantMarkMillis(long commandTimeoutMs) {
        return Math.max(15_000, 4 * commandTimeoutMs);
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
