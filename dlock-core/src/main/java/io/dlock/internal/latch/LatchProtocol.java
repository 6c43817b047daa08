package io.dlock.internal.latch;

import io.dlock.internal.Errors;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.internal.script.LuaScript;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import static io.dlock.DistributedCountDownLatch.MAX_COUNT;
import static io.dlock.DistributedCountDownLatch.MAX_TTL;

/**
 * What one latch sends to Redis and how it reads the replies (docs/protocol.md §11): the state read, the changes
 * (set, count down, delete; each one script on the key) and the announcement of an opening. It describes and sends;
 * it never waits: the awaiters' {@link LatchGroup} decides when to read, {@link RedisCountDownLatch} when to change.
 *
 * <p>Every future it returns completes on the thread that brings Redis's answer, its failure named after the latch
 * and the operation. Thread-safe; its one piece of state is the {@link #lastKnownClosed} hint.
 */
final class LatchProtocol {
    /** What errors call a latch. */
    static final String KIND = "count-down latch";

    private final LatchParts parts;
    private final LatchChannel channel;
    /**
     * What this latch object last learned: closed (a count set or found by {@code trySetCount}, a count-down that
     * left a count, a check of its awaiters' group that read one), or not known to be (open, or nothing learned yet).
     * A hint, never trusted as the latch's state: an awaiter of a latch last known closed subscribes before its first
     * check ({@link LatchGroup#add}), as that check would most likely find it closed and have to be repeated.
     */
    private volatile boolean lastKnownClosed;

    LatchProtocol(LatchParts parts, LatchChannel channel) {
        this.parts = parts;
        this.channel = channel;
    }

    String name() {
        return channel.name();
    }

    /** @return the latch's pub/sub channel */
    String channel() {
        return channel.channel();
    }

    /** @return how errors name a latch: {@code count-down latch 'name'} */
    static String describe(String name) {
        return KIND + " '" + name + "'";
    }

    /** @return the TTL in ms, checked: 1 ms to {@link io.dlock.DistributedCountDownLatch#MAX_TTL} */
    long ttlMillis(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException(describe(name()) + ": ttl must be between 1 ms and "
                    + MAX_TTL.toDays() + " days, was " + ttl);
        }
        return ttl.toMillis();
    }

    /**
     * {@code latch_try_set}: sets the count unless the latch has one.
     *
     * @param ttlMs the key's TTL, or 0 for none
     * @return whether it set the count
     * @throws IllegalArgumentException when {@code count} is below 1 or above 2^53
     */
    CompletableFuture<Boolean> trySet(long count, long ttlMs) {
        if (count < 1) {
            throw new IllegalArgumentException(describe(name()) + ": count must be at least 1, was "
                    + count + " (a latch with no count is open already)");
        }
        if (count > MAX_COUNT) {
            throw new IllegalArgumentException(describe(name()) + ": count must be at most 2^53 ("
                    + MAX_COUNT + "), the largest the scripts hold exactly, was " + count);
        }
        return this.<Long>run("trySetCount", LatchScripts.TRY_SET, Long.toString(count), Long.toString(ttlMs),
                channel.publishCommand(), channel.channel()).thenApply(set -> {
                    lastKnownClosed = true; // set now, or it had a count already
                    return set == 1L;
                });
    }

    /** {@code latch_count_down}: @return the count left (0: open now, or was) */
    CompletableFuture<Long> countDown() {
        return this.<Long>run("countDown", LatchScripts.COUNT_DOWN, channel.publishCommand(), channel.channel())
                .thenApply(left -> {
                    lastKnownClosed = left > 0;
                    return left;
                });
    }

    /** {@code latch_delete}: @return whether a count was deleted (the latch opened) */
    CompletableFuture<Boolean> delete() {
        return this.<Long>run("delete", LatchScripts.DELETE, channel.publishCommand(), channel.channel())
                .thenApply(deleted -> deleted == 1L);
    }

    /**
     * The latch's state: a {@code GET} and a {@code PTTL} of the key, sent together (one round trip, no script: an
     * await's check costs two commands, as Redisson's costs a GET). The two are not one atomic read, and need not be:
     * the count alone decides (open at 0 or when the key is gone); the TTL only bounds the next sleep, and a TTL read
     * just after a change bounds it for the new state, whose own message or the bounded re-check follows
     * (docs/protocol.md §11.2). A key that is not a latch's count is refused by {@code latch_state}, sent only then,
     * which names what it holds without changing it.
     */
    CompletableFuture<State> state() {
        return send(() -> {
            String name = name();
            CompletableFuture<String> count = parts.commands().get(name).toCompletableFuture();
            CompletableFuture<Long> ttl = parts.commands().pttl(name).toCompletableFuture();
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
                return parts.scripts().<List<Object>>run(LatchScripts.STATE, ScriptOutputType.MULTI,
                        new String[]{name}).thenApply(State::of);
            }).thenCompose(state -> state);
        });
    }

    /** {@code latch_state}, read only: the state, or the refusal of a key that is not a latch's count. */
    CompletableFuture<State> inspect() {
        return this.<List<Object>>run("inspect", LatchScripts.STATE).thenApply(State::of);
    }

    /** Publishes "0" if the latch is open ({@code latch_opened}), for awaiters only a message wakes; never fails. */
    void announceOpened() {
        send(() -> parts.scripts().run(LatchScripts.OPENED, ScriptOutputType.INTEGER, new String[]{name()},
                channel.publishCommand(), channel.channel()));
    }

    /** @return whether this latch object last learned the latch closed ({@link #lastKnownClosed}: a hint) */
    boolean lastKnownClosed() {
        return lastKnownClosed;
    }

    /** A check of the awaiters' group read the latch {@code closed} or open. */
    void learned(boolean closed) {
        lastKnownClosed = closed;
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

    /** One script on the latch's key, its failure named after the latch and {@code operation}. */
    private <T> CompletableFuture<T> run(String operation, LuaScript script, String... args) {
        ScriptOutputType type = script == LatchScripts.STATE ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        return SyncWaits.mapped(send(() -> parts.scripts().run(script, type, new String[]{name()}, args)), KIND,
                name(), operation);
    }

    /** Sends {@code call} unless the client is closed (then fails, naming the latch). */
    private <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call) {
        return Errors.call(() -> {
            parts.acquisitions().checkOpen(KIND, name());
            return call.get();
        });
    }
}
