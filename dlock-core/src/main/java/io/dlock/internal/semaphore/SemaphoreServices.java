package io.dlock.internal.semaphore;

import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.LockException;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.script.LuaScript;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.wakeup.WakeupHub;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What every semaphore of one client shares: Redis commands and scripts, the wake-up hub, the timer, the executor
 * that completes user futures, the permit watchdog, and the acquisitions now waiting (failed when the client closes).
 * Semaphores are small objects over this; they hold nothing but their keys.
 */
public final class SemaphoreServices {
    final RedisClusterAsyncCommands<String, String> redis;
    final ScriptRunner scripts;
    final WakeupHub wakeups;
    final TaskScheduler scheduler;
    final LongSupplier nanoTime;
    final Executor executor;
    final String publishCommand;
    /** The longest sleep of a waiter without a message before it asks Redis again (ms). */
    final long recheckMs;
    final PermitWatchdog watchdog;
    /** The client's event listeners (one volatile read per event; a no-op while nobody listens). */
    final Supplier<LockEventListener> events;
    private final Set<WaitLoop<?>> waiting = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param publishCommand the scripts' publish command: {@code "publish"}, {@code "spublish"} or {@code "both"}
     * @param watchdogMs     the lease of a permit taken without one; renewed every third of it
     * @param lostSink       told of each lost permit once (hands off to the lease-lost listeners' executor)
     * @param events         the client's event listeners now
     */
    public SemaphoreServices(RedisClusterAsyncCommands<String, String> redis, ScriptRunner scripts,
                             WakeupHub wakeups, TaskScheduler scheduler, LongSupplier nanoTime, Executor executor,
                             String publishCommand, long recheckMs, long watchdogMs, Clock clock,
                             Consumer<LeaseLostEvent> lostSink, Supplier<LockEventListener> events) {
        this.redis = redis;
        this.scripts = scripts;
        this.wakeups = wakeups;
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
        this.executor = executor;
        this.publishCommand = publishCommand;
        this.recheckMs = recheckMs;
        this.events = events;
        this.watchdog = new PermitWatchdog(this, watchdogMs, clock, lostSink);
    }

    /** Starts the permit watchdog's timer. */
    public void start() {
        watchdog.start();
    }

    <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        try {
            return scripts.run(script, type, keys, args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    void checkOpen(String name) {
        if (closed) {
            throw new LockException(name, "semaphore '" + name + "': the lock client is closed", null);
        }
    }

    void register(WaitLoop<?> loop) {
        waiting.add(loop);
        loop.result().whenComplete((value, error) -> waiting.remove(loop));
        if (closed) {
            loop.fail(new LockException("the lock client is closed"));
        }
    }

    /** Hands {@code internal}'s outcome to a new future completed on the executor (calls that grant nothing). */
    <T> CompletableFuture<T> toUser(CompletableFuture<T> internal, String kind, String name, String operation) {
        return toUser(internal, Function.identity(), () -> { }, value -> { }, kind, name, operation);
    }

    /**
     * Hands an acquisition's outcome to a new future completed on the executor, as {@code map} of the grant.
     * Cancelling that future runs {@code onCancel} (which abandons the wait); a grant that arrives when the user's
     * future was cancelled already goes to {@code orphan} (which gives it back), so no grant is ever dropped.
     */
    <T, R> CompletableFuture<R> toUser(CompletableFuture<T> internal, Function<? super T, ? extends R> map,
                                       Runnable onCancel, Consumer<? super T> orphan, String kind, String name,
                                       String operation) {
        CompletableFuture<R> user = new CompletableFuture<>();
        internal.whenCompleteAsync((value, error) -> {
            if (error != null) {
                user.completeExceptionally(SemaphoreErrors.toApi(error, kind, name, operation));
            } else if (!user.complete(map.apply(value)) && value != null) {
                orphan.accept(value);
            }
        }, executor);
        user.whenComplete((value, error) -> {
            if (user.isCancelled()) {
                onCancel.run();
            }
        });
        return user;
    }

    /** Fails every waiting acquisition and stops the watchdog (reporting live permits lost); idempotent. */
    public void close() {
        closed = true;
        watchdog.close();
        List<WaitLoop<?>> loops = new ArrayList<>(waiting);
        for (WaitLoop<?> loop : loops) {
            loop.fail(new LockException("the lock client closed while waiting for a semaphore"));
        }
    }

    /** @return acquisitions waiting now */
    public int waitingCount() {
        return waiting.size();
    }

    /** @return leased permits this client holds now (renewed or with a fixed lease) */
    public int heldPermitCount() {
        return watchdog.heldCount();
    }
}
