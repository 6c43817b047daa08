package io.dlock.internal.latch;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockException;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.SyncWaits;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The {@link DistributedCountDownLatch}: each operation is one script on the latch's key (docs/protocol.md §11),
 * waits are {@link LatchAwait}s. Immutable and thread-safe; holds only its name and channel.
 *
 * <p>Sync methods wait for their async form; only {@code await} is interruptible (the others are one round trip,
 * bounded by the command timeout, and keep the interrupt flag).
 */
final class RedisCountDownLatch implements DistributedCountDownLatch {
    /** What errors call a latch. */
    static final String KIND = "count-down latch";

    private final LatchServices services;
    private final LatchChannel channel;
    /**
     * What this object last learned of the latch: closed (a count set or found by {@code trySetCount}, a count-down
     * that left a count, a check of its awaiters' group that read one), or not known to be (open, or nothing learned
     * yet). A hint, never trusted as the latch's state: an awaiter of a latch last known closed subscribes before its
     * first check ({@link LatchGroup#add}), as that check would most likely find it closed and have to be repeated
     * once subscribed.
     */
    private volatile boolean lastKnownClosed;

    RedisCountDownLatch(LatchServices services, LatchChannel channel) {
        this.services = services;
        this.channel = channel;
    }

    LatchChannel channel() {
        return channel;
    }

    @Override
    public String getName() {
        return channel.name();
    }

    @Override
    public boolean trySetCount(long count) {
        return join(trySet(count, 0));
    }

    @Override
    public boolean trySetCount(long count, Duration ttl) {
        return join(trySet(count, ttlMillis(ttl)));
    }

    @Override
    public void countDown() {
        join(countDownInternal());
    }

    @Override
    public long getCount() {
        return join(getCountAsync());
    }

    @Override
    public long remainTimeToLive() {
        return join(remainTimeToLiveAsync());
    }

    @Override
    public boolean delete() {
        return join(deleteInternal());
    }

    @Override
    public void await() throws InterruptedException {
        awaitInterruptibly(-1);
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitInterruptibly(timeoutMillis(timeout, unit));
    }

    private boolean awaitInterruptibly(long timeoutMs) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException(describe(getName()) + ": interrupted before waiting");
        }
        CompletableFuture<Boolean> wait = new LatchAwait(services, this, timeoutMs).start().result();
        // the one interrupt rule: an await takes nothing, so abandoning it is cancelling it
        return services.waits.awaitOrAbandon(SyncWaits.mapped(wait, KIND, getName(), "await"), () -> {
            wait.cancel(false);
            return CompletableFuture.completedFuture(null);
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetCountAsync(long count) {
        return handOff(trySet(count, 0), "trySetCount");
    }

    @Override
    public CompletableFuture<Boolean> trySetCountAsync(long count, Duration ttl) {
        return handOff(trySet(count, ttlMillis(ttl)), "trySetCount");
    }

    private long ttlMillis(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException(describe(getName()) + ": ttl must be between 1 ms and "
                    + MAX_TTL.toDays() + " days, was " + ttl);
        }
        return ttl.toMillis();
    }

    /** The calls behind the sync and async methods complete on the thread that brings the answer: see {@link #run}. */
    private CompletableFuture<Boolean> trySet(long count, long ttlMs) {
        if (count < 1) {
            throw new IllegalArgumentException(describe(getName()) + ": count must be at least 1, was "
                    + count + " (a latch with no count is open already)");
        }
        if (count > MAX_COUNT) {
            throw new IllegalArgumentException(describe(getName()) + ": count must be at most 2^53 ("
                    + MAX_COUNT + "), the largest the scripts hold exactly, was " + count);
        }
        return this.<Long>run("trySetCount", LatchScripts.TRY_SET, ScriptOutputType.INTEGER,
                Long.toString(count), Long.toString(ttlMs), channel.publishCommand(), channel.channel())
                .thenApply(set -> {
                    lastKnownClosed = true; // set now, or it had a count already
                    return set == 1L;
                });
    }

    @Override
    public CompletableFuture<Void> countDownAsync() {
        return handOff(countDownInternal(), "countDown");
    }

    private CompletableFuture<Void> countDownInternal() {
        return this.<Long>run("countDown", LatchScripts.COUNT_DOWN, ScriptOutputType.INTEGER,
                channel.publishCommand(), channel.channel()).thenApply(left -> {
                    lastKnownClosed = left > 0;
                    services.events.get().latchCountedDown(getName());
                    return null;
                });
    }

    @Override
    public CompletableFuture<Long> getCountAsync() {
        return published("getCount", state().thenApply(State::count));
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return published("remainTimeToLive", state().thenApply(State::pttl));
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return handOff(deleteInternal(), "delete");
    }

    private CompletableFuture<Boolean> deleteInternal() {
        return this.<Long>run("delete", LatchScripts.DELETE, ScriptOutputType.INTEGER, channel.publishCommand(),
                channel.channel()).thenApply(deleted -> deleted == 1L);
    }

    @Override
    public CompletableFuture<Void> awaitAsync() {
        CompletableFuture<Boolean> wait = new LatchAwait(services, this, -1).start().result();
        return cancelling(handOff(wait.thenApply(open -> (Void) null), "await"), wait);
    }

    @Override
    public CompletableFuture<Boolean> awaitAsync(long timeout, TimeUnit unit) {
        CompletableFuture<Boolean> wait = new LatchAwait(services, this, timeoutMillis(timeout, unit)).start()
                .result();
        return cancelling(handOff(wait, "await"), wait);
    }

    /**
     * @return the wait in ms: 0 for a negative {@code timeout}, -1 (no limit) for one longer than {@link #MAX_TTL}
     *         (as a lock's wait), so that no deadline overflows
     */
    private static long timeoutMillis(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        long ms = unit.toMillis(timeout);
        return ms > MAX_TTL.toMillis() ? -1 : Math.max(0, ms);
    }

    /** @return {@code user}, whose cancellation cancels {@code wait} (which drops its subscription) */
    private static <T> CompletableFuture<T> cancelling(CompletableFuture<T> user, CompletableFuture<Boolean> wait) {
        user.whenComplete((value, error) -> {
            if (error instanceof CancellationException) {
                wait.cancel(false);
            }
        });
        return user;
    }

    /**
     * The latch's state, straight from Redis (on Lettuce's thread): a {@code GET} and a {@code PTTL} of the key, sent
     * together (one round trip, no script: an await's check costs two commands, as Redisson's costs a GET). The two are
     * not one atomic read, and need not be: the count alone decides (open at 0 or when the key is gone); the TTL only
     * bounds the next sleep, and a TTL read just after a change (the key deleted, set again) bounds it for the new
     * state, whose own message or the bounded re-check follows (docs/protocol.md §11.2). A key that is not a latch's
     * count (another type, a string that is no count as DECR reads one) is refused by {@code latch_state}, sent only
     * then, which names what it holds without changing it.
     */
    CompletableFuture<State> state() {
        return send(() -> {
            String name = getName();
            CompletableFuture<String> count = services.commands.get(name).toCompletableFuture();
            CompletableFuture<Long> ttl = services.commands.pttl(name).toCompletableFuture();
            return count.thenCombine(ttl, State::read).handle((state, error) -> {
                if (error == null && state != null) {
                    return CompletableFuture.completedFuture(state);
                }
                Throwable cause = error == null ? null : Errors.unwrap(error);
                if (cause != null && !(cause instanceof RedisCommandExecutionException
                        && String.valueOf(cause.getMessage()).startsWith("WRONGTYPE"))) {
                    return CompletableFuture.<State>failedFuture(cause);
                }
                // not a latch: the script refuses it with the message every latch call gives
                return services.scripts.<List<Object>>run(LatchScripts.STATE, ScriptOutputType.MULTI,
                        new String[]{name}).thenApply(State::of);
            }).thenCompose(state -> state);
        });
    }

    /**
     * What a check read.
     *
     * @param count the count exactly as stored (0 when the latch is open; a count above 2^53 that Redisson wrote is
     *              not rounded), never negative
     * @param pttl  the remaining TTL in ms, -1 for none, -2 when the key is gone
     */
    record State(long count, long pttl) {
        /** Counts as {@code DECR} reads them (and {@code latch_count} accepts): 0, or digits with no leading 0. */
        private static final Pattern COUNT = Pattern.compile("0|-?[1-9][0-9]{0,18}");

        /** @param reply {@code {count as a decimal string, pttl}} from {@code latch_state} */
        static State of(List<Object> reply) {
            return new State(Math.max(0, Long.parseLong(String.valueOf(reply.get(0)))), (Long) reply.get(1));
        }

        /**
         * @param count the key's value (null when it is gone)
         * @param pttl  its PTTL, read just after
         * @return the state, or null when the value is not a count (then {@code latch_state} refuses the key)
         */
        static State read(String count, Long pttl) {
            if (count == null) {
                return new State(0, -2);
            }
            if (!COUNT.matcher(count).matches()) {
                return null;
            }
            try {
                return new State(Math.max(0, Long.parseLong(count)), pttl);
            } catch (NumberFormatException e) {
                return null; // beyond a long: DECR refuses it too
            }
        }

        boolean isOpen() {
            return count == 0;
        }
    }

    /** @return whether this object last learned the latch closed ({@link #lastKnownClosed}: a hint) */
    boolean lastKnownClosed() {
        return lastKnownClosed;
    }

    /** A check of the awaiters' group read the latch {@code closed} or open. */
    void learned(boolean closed) {
        lastKnownClosed = closed;
    }

    /** Publishes "0" if the latch is open, for awaiters that only a message wakes; failures are ignored. */
    void announceOpened() {
        send(() -> services.scripts.run(LatchScripts.OPENED, ScriptOutputType.INTEGER, new String[]{getName()},
                channel.publishCommand(), channel.channel()));
    }

    /**
     * Runs one script on the latch's key, failures named after the latch and {@code operation}, completing on the
     * thread that brings the answer (a Redis I/O thread): the sync methods wait on it as it is, the async ones hand it
     * to the client's executor ({@link #handOff}), as the lock wing's sync and async methods do. A sync
     * {@code countDown()} or {@code trySetCount()} so wakes its caller once, not after a hop through the executor.
     */
    private <T> CompletableFuture<T> run(String operation, io.dlock.internal.script.LuaScript script,
                                         ScriptOutputType type, String... args) {
        return SyncWaits.mapped(send(() -> services.scripts.run(script, type, new String[]{getName()}, args)), KIND,
                getName(), operation);
    }

    private <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call) {
        return Errors.call(() -> {
            services.acquisitions.checkOpen(KIND, getName());
            return call.get();
        });
    }

    /** {@code reply} completed on the client's executor, failures named after the latch and {@code operation}. */
    private <T> CompletableFuture<T> published(String operation, CompletableFuture<T> reply) {
        return handOff(reply, operation);
    }

    private <T> CompletableFuture<T> handOff(CompletableFuture<T> inner, String operation) {
        return Callers.toCaller(services.executor, null, null, inner,
                error -> Errors.toApi(error, KIND, getName(), operation));
    }

    /** Waits for a one-round-trip operation, uninterruptibly (the interrupt flag is kept). */
    private <T> T join(CompletableFuture<T> future) {
        return services.waits.awaitUninterruptibly(future, KIND, getName(), "call");
    }

    /** @return how errors name a latch: {@code count-down latch 'name'} */
    static String describe(String name) {
        return KIND + " '" + name + "'";
    }

    @Override
    public String toString() {
        return "RedisCountDownLatch{" + getName() + "}";
    }
}
