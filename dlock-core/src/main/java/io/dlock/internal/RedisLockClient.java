package io.dlock.internal;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.FencedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.LockInfo;
import io.dlock.internal.lease.LeaseRenewer;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.lock.LockServices;
import io.dlock.internal.lock.ReentrantRedisLock;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.wakeup.PubSubPort;
import io.dlock.internal.wakeup.WakeupHub;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The standalone-Redis {@link LockClient}: one command connection, one pub/sub connection, one timer thread and
 * an executor, shared by every lock it hands out.
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
 * <p>Design notes of the lock itself: {@link ReentrantRedisLock}; renewal: {@link LeaseRenewer}; wake-ups:
 * {@link WakeupHub}.
 */
public final class RedisLockClient implements LockClient {
    private static final Logger log = LoggerFactory.getLogger(RedisLockClient.class);

    private final String id = UUID.randomUUID().toString();
    private final LockClientConfig config;
    private final RedisClient redisClient;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final ScheduledThreadPoolExecutor timer;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final WakeupHub wakeups;
    private final LeaseRenewer renewer;
    private final LockServices services;
    private final LockInspector inspector;
    private final List<LeaseLostListener> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private RedisLockClient(LockClientConfig config, RedisClient redisClient,
                            StatefulRedisConnection<String, String> connection,
                            StatefulRedisPubSubConnection<String, String> pubSub) {
        this.config = config;
        this.redisClient = redisClient;
        this.connection = connection;
        this.pubSub = pubSub;
        this.timer = new ScheduledThreadPoolExecutor(1, daemonThreads("dlock-timer"));
        this.timer.setRemoveOnCancelPolicy(true);
        this.ownedExecutor = config.executor().isPresent() ? null
                : Executors.newCachedThreadPool(daemonThreads("dlock-callback"));
        this.executor = config.executor().orElse(ownedExecutor);
        TaskScheduler scheduler = TaskScheduler.of(timer);
        this.wakeups = new WakeupHub(new LettucePubSubPort(pubSub), scheduler);
        ScriptRunner scripts = new ScriptRunner(connection.async());
        long watchdogMs = config.watchdogTimeout().toMillis();
        this.renewer = new LeaseRenewer(watchdogMs, scheduler, System::nanoTime, Clock.systemUTC(),
                this::dispatchLeaseLost);
        this.services = new LockServices(id, connection.async(), scripts, wakeups, renewer, executor, "publish",
                config.fairLockWaitTimeout().toMillis(), Clock.systemUTC());
        this.inspector = new LockInspector(scripts);
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                wakeups.onMessage(channel, message);
            }
        });
        pubSub.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(io.lettuce.core.RedisChannelHandler<?, ?> c, SocketAddress address) {
                // Messages published while we were disconnected are lost: let every waiter try again.
                wakeups.wakeEverybody();
            }
        });
        renewer.start();
    }

    /** Connects to the Redis of {@code config}; blocks until connected or the command timeout passed. */
    public static LockClient start(LockClientConfig config) {
        RedisURI uri = parseUri(config.redisUri());
        Duration timeout = config.commandTimeout();
        uri.setTimeout(timeout);
        RedisClient redisClient = RedisClient.create(uri);
        redisClient.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build())
                .build());
        StatefulRedisConnection<String, String> connection = null;
        try {
            connection = redisClient.connect(StringCodec.UTF8);
            StatefulRedisPubSubConnection<String, String> pubSub = redisClient.connectPubSub(StringCodec.UTF8);
            return new RedisLockClient(config, redisClient, connection, pubSub);
        } catch (RuntimeException e) {
            if (connection != null) {
                connection.closeAsync();
            }
            redisClient.shutdownAsync(0, 2, TimeUnit.SECONDS);
            throw new LockException("cannot connect to Redis at " + redacted(config.redisUri()) + ": "
                    + Errors.describe(Errors.unwrap(e)), e);
        }
    }

    private static RedisURI parseUri(String redisUri) {
        try {
            return RedisURI.create(redisUri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("redisUri is not a valid Redis URI: " + redacted(redisUri) + " ("
                    + e.getMessage() + ")", e);
        }
    }

    private static String redacted(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
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

    private void checkOpen() {
        if (closed) {
            throw new LockException("the lock client is closed");
        }
    }

    @Override
    public DistributedLock getLock(String name) {
        checkOpen();
        return new ReentrantRedisLock(services, name);
    }

    @Override
    public DistributedLock getFairLock(String name) {
        checkOpen();
        return new io.dlock.internal.lock.FairRedisLock(services, name);
    }

    @Override
    public DistributedReadWriteLock getReadWriteLock(String name) {
        checkOpen();
        return new io.dlock.internal.lock.ReadWriteRedisLock(services, name);
    }

    @Override
    public FencedLock getFencedLock(String name) {
        LockNames.requireValid(name);
        throw new UnsupportedOperationException("fenced lock '" + name + "': not implemented yet");
    }

    @Override
    public LockInfo inspect(String name) {
        LockNames.requireValid(name);
        checkOpen();
        try {
            return inspector.inspect(name).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("lock '" + name + "': inspect interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw Errors.toApi(e, name, "inspect");
        }
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

    /** @return what the client is doing now (for tests and inspection) */
    public Diagnostics diagnostics() {
        return new Diagnostics(renewer.renewedCount(), renewer.trackedCount(), wakeups.subscriptionCount(),
                services.waitingCount());
    }

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
        services.close();
        try {
            pubSub.close();
            connection.close();
        } catch (RuntimeException e) {
            log.debug("closing connections", e);
        }
        redisClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        timer.shutdownNow();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
    }

    @Override
    public String toString() {
        return "LockClient{" + id + " @ " + redacted(config.redisUri()) + "}";
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Lettuce's pub/sub connection as the hub's port. */
    private record LettucePubSubPort(StatefulRedisPubSubConnection<String, String> pubSub) implements PubSubPort {
        @Override
        public CompletableFuture<Void> subscribe(String channel) {
            return pubSub.async().subscribe(channel).toCompletableFuture();
        }

        @Override
        public CompletableFuture<Void> unsubscribe(String channel) {
            return pubSub.async().unsubscribe(channel).toCompletableFuture();
        }
    }
}
