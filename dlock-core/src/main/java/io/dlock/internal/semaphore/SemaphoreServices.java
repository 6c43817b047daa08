package io.dlock.internal.semaphore;

import io.dlock.DistributedSemaphore;
import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.HeadStart;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.parts.ClientParts;
import io.dlock.internal.script.LuaScript;
import io.dlock.internal.script.ScriptRunner;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What every semaphore of one client shares: Redis commands and scripts, the client's registry of what is in flight
 * ({@link Acquisitions}: the wait loop's settings, the sync waits, the close rule), the timer, the executor that
 * completes user futures, and the permit watchdog. Semaphores are small objects over this; they hold nothing but
 * their keys.
 */
public final class SemaphoreServices {
    final RedisClusterAsyncCommands<String, String> redis;
    final ScriptRunner scripts;
    final Acquisitions acquisitions;
    final TaskScheduler scheduler;
    final LongSupplier nanoTime;
    final Executor executor;
    final String publishCommand;
    /** The longest sleep of a waiter without a message before it asks Redis again (ms). */
    final long recheckMs;
    /** How long a plain semaphore's grant mark lives (ms): longer than any attempt's give-back takes to follow it. */
    final long grantMarkMs;
    final PermitWatchdog watchdog;
    /** The client's event listeners (one volatile read per event; a no-op while nobody listens). */
    final Supplier<LockEventListener> events;
    /** The semaphores' permits handed on between callers of this client ({@link LocalPermits}). */
    final LocalPermitLines localPermits;

    /**
     * @param parts    the client's shared parts: a permit taken without a lease gets the watchdog timeout, renewed
     *                 every third of it; a grant mark outlives the give-back of an attempt whose reply was lost
     *                 ({@link #grantMarkMillis})
     * @param lostSink told of each lost permit once (hands off to the lease-lost listeners' executor)
     */
    public SemaphoreServices(ClientParts parts, Consumer<LeaseLostEvent> lostSink) {
        this.redis = parts.redis().commands();
        this.scripts = parts.redis().scripts();
        this.acquisitions = parts.acquisitions();
        this.scheduler = parts.timer();
        this.nanoTime = acquisitions::nanoTime;
        this.executor = acquisitions.executor();
        this.publishCommand = parts.redis().publishCommand();
        this.recheckMs = DistributedSemaphore.RECHECK_INTERVAL.toMillis();
        this.grantMarkMs = grantMarkMillis(parts.settings().commandTimeoutMs());
        this.events = acquisitions.events()::get;
        this.watchdog = new PermitWatchdog(this, parts.settings().watchdogMs(), parts.clock().wall(), lostSink);
        this.localPermits = new LocalPermitLines(scheduler, nanoTime, TimeUnit.MILLISECONDS.toNanos(recheckMs),
                parts.settings().localHandoffs(), HeadStart.OTHER_CLIENTS_NANOS);
    }

    /**
     * A release through Redis was answered with how many subscribers its message reached ({@code receivers}): tells
     * its reservation, which compares them with this client's own subscription to the channel (docs/architecture.md
     * §12, the head start).
     */
    void releasedInRedis(LocalPermits.Reservation reservation, String channel, long receivers) {
        reservation.releasedInRedis(receivers, acquisitions.waiting().hub().listensTo(channel) ? 1 : 0);
    }

    /**
     * A message arrived on {@code channel}: if it is a semaphore's in use here, its waiters in line ask Redis for
     * the permits it names ({@link LocalPermits#messageArrived}). Never blocks.
     */
    public void message(String channel, String message) {
        localPermits.message(channel, message);
    }

    /** The subscriptions were re-established (messages may have been lost): every waiter in line asks Redis. */
    public void resubscribed() {
        localPermits.resubscribed();
    }

    /**
     * How long a plain semaphore's grant mark lives: long enough that the give-back of an attempt whose reply was lost
     * (sent at once, after a command timeout or a reconnect) finds it; short enough that marks do not pile up.
     */
    static long grantMarkMillis(long commandTimeoutMs) {
        return Math.max(15_000, 4 * commandTimeoutMs);
    }

    /** Starts the permit watchdog's timer. */
    public void start() {
        watchdog.start();
    }

    <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return Errors.call(() -> scripts.run(script, type, keys, args));
    }

    /** {@link ScriptRunner#runByText}: for give-backs after a lost reply, which must not meet {@code NOSCRIPT}. */
    <T> CompletableFuture<T> runByText(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return Errors.call(() -> scripts.runByText(script, type, keys, args));
    }

    void checkOpen(String kind, String name) {
        acquisitions.checkOpen(kind, name);
    }

    /** Waits for a call that grants nothing (interrupts are kept for later), its failure mapped naming the semaphore. */
    <T> T sync(CompletableFuture<T> future, String kind, String name, String operation) {
        return acquisitions.waits().awaitUninterruptibly(future, kind, name, operation);
    }

    /** Hands a call that grants nothing to its caller on the executor, its failure mapped naming the semaphore. */
    <T> CompletableFuture<T> async(CompletableFuture<T> future, String kind, String name, String operation) {
        return Callers.toCaller(executor, null, null, future, error -> Errors.toApi(error, kind, name, operation));
    }

    /** Stops the watchdog (reporting live permits lost); the acquisitions are failed by {@link Acquisitions#close}. */
    public void close() {
        watchdog.close();
    }

    /** @return leased permits this client holds now (renewed or with a fixed lease) */
    public int heldPermitCount() {
        return watchdog.heldCount();
    }
}
