package io.dlock.internal.lock;

import io.dlock.internal.script.ScriptCall;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the read and the write protocol of a {@link ReadWriteRedisLock} share, for one side: the keys, the fields, the
 * channel (where every message wakes all of this client's waiters, readers and writers alike), the forced release and
 * the state reads. Each side's protocol ({@link ReadProtocol}, {@link WriteProtocol}) holds one; immutable.
 */
final class ReadWriteSide {
    /** Which side: its flag's index in {@code rwlock_state}'s reply, and its name in messages and scripts. */
    enum Side {
        WRITE(0, "write"),
        READ(1, "read");

        final int stateIndex;
        final String word;

        Side(int stateIndex, String word) {
            this.stateIndex = stateIndex;
            this.word = word;
        }
    }

    /** Index of the PTTL in {@code rwlock_state}'s reply. */
    private static final int PTTL = 2;

    final LockContext context;
    final ReadWriteKeys keys;
    final Side side;
    /** KEYS of the release, extension and force scripts: the hash, the timeout root (the channel is an ARGV). */
    final String[] releaseKeys;

    ReadWriteSide(LockContext context, ReadWriteKeys keys, Side side) {
        this.context = context;
        this.keys = keys;
        this.side = side;
        this.releaseKeys = new String[] {keys.name(), keys.timeoutRoot()};
    }

    /** @return the owner's reader field, {@code <client id>:<owner id>} */
    String readerField(long ownerId) {
        return context.ownerField(ownerId);
    }

    /** @return the owner's writer field, {@code <client id>:<owner id>:write} */
    String writerField(long ownerId) {
        return context.ownerField(ownerId) + ReadWriteKeys.WRITE_SUFFIX;
    }

    /**
     * How long a reader waits behind writers before it claims the readers' turn (phase-fair, {@link
     * ReadWriteRedisLock}): from then on it leaves a reader mark in Redis when a write hold refuses it, and a writer's
     * release inside its client hands the lock to the waiting readers rather than the next writer. Before that,
     * writers go first, which costs one script per write under a read/write mix (bench S7); after it, a reader waits
     * at most one more write hold (on loopback: well within 200 ms).
     */
    static final long READERS_PATIENCE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * How often a waiting owner that may leave a waiting mark (a writer, or a reader behind a write hold) attempts at
     * least, and so refreshes its mark: a third of the watchdog timeout. A mark lives twice that
     * ({@link #markLifeMs}), so one late attempt does not lose it.
     */
    long markRefreshMs() {
        return Math.max(1, context.watchdogMs() / 3);
    }

    /** @return the life of a waiting mark in ms, given to the acquire scripts: twice {@link #markRefreshMs} */
    long markLifeMs() {
        return 2 * markRefreshMs();
    }

    /**
     * The sleep after a refused attempt of an owner that waits with a mark: at most {@link #markRefreshMs}, so that it
     * attempts (and refreshes its mark) before the mark runs out, even when the lock's TTL is longer.
     */
    long sleepWithMark(long ttl) {
        long refreshMs = markRefreshMs();
        return ttl < 0 ? refreshMs : Math.min(ttl, refreshMs);
    }

    /**
     * @return the call that takes back the waiting mark {@code field} may have left ({@code rwlock_withdraw_mark}: wakes
     *         the other side's waiters held back only by this side's marks)
     */
    ScriptCall withdrawMark(String field) {
        return ScriptCall.integer(Scripts.RWLOCK_WITHDRAW_MARK, new String[] {keys.waitingMarks(), keys.name()}, field,
                context.publishCommand(), keys.channel());
    }

    /**
     * @return the call that removes the lock if it is held in this side's mode (as Redisson does): the write side
     *         leaves a read-held lock alone and the read side a write-held one
     */
    ScriptCall forceRelease() {
        return ScriptCall.integer(Scripts.RWLOCK_FORCE_RELEASE, releaseKeys, context.publishCommand(), side.word,
                keys.channel());
    }

    /** @return {write locked, read locked, PTTL} in one atomic read */
    private CompletableFuture<long[]> state(String operation) {
        CompletableFuture<List<Object>> reply = context.services().redis().scripts().run(Scripts.RWLOCK_STATE,
                ScriptOutputType.MULTI, new String[] {keys.name()});
        return context.mapErrors(reply.thenApply(values -> {
            long[] state = new long[3];
            for (int i = 0; i < state.length; i++) {
                state[i] = (Long) values.get(i);
            }
            return state;
        }), operation);
    }

    /** @return whether the lock is held in this side's mode */
    CompletableFuture<Boolean> locked() {
        return state("isLocked").thenApply(state -> state[side.stateIndex] == 1L);
    }

    /** @return the hash's PTTL, except {@code TTL_NOT_LOCKED} while only the other side is held */
    CompletableFuture<Long> ttl() {
        return state("remainTimeToLive").thenApply(state -> {
            boolean otherSideOnly = state[side.stateIndex] == 0L && state[1 - side.stateIndex] == 1L;
            return otherSideOnly ? io.dlock.DistributedLock.TTL_NOT_LOCKED : state[PTTL];
        });
    }
}
