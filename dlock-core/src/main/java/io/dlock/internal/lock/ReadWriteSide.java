package io.dlock.internal.lock;

import io.dlock.LockKind;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the read and the write side of a {@link ReadWriteRedisLock} share: the keys, the channel (where every message
 * wakes all of this client's waiters, readers and writers alike), the forced release, the state reads and the
 * bookkeeping of a release.
 */
abstract sealed class ReadWriteSide extends AbstractDistributedLock permits RedisReadLock, RedisWriteLock {
    /** Index in {@code rwlock_state}'s reply. */
    static final int WRITE_LOCKED = 0;
    static final int READ_LOCKED = 1;
    static final int PTTL = 2;

    final ReadWriteKeys keys;
    /** KEYS of the release and force scripts: the hash, the timeout root (the channel is an ARGV). */
    final String[] releaseKeys;

    ReadWriteSide(LockServices services, ReadWriteKeys keys, LockKind kind) {
        super(services, keys.name(), kind);
        this.keys = keys;
        this.releaseKeys = new String[] {keys.name(), keys.timeoutRoot()};
    }

    /** {@link #WRITE_LOCKED} or {@link #READ_LOCKED}: which flag of the state says that this side is locked. */
    abstract int side();

    /** Which side this is, for messages: "read" or "write". */
    abstract String sideName();

    final String readerField(long ownerId) {
        return ownerField(ownerId);
    }

    final String writerField(long ownerId) {
        return ownerField(ownerId) + ReadWriteKeys.WRITE_SUFFIX;
    }

    final long effectiveLease(long leaseMs) {
        return leaseMs == LEASE_WATCHDOG ? services.renewer.watchdogMs() : leaseMs;
    }

    @Override
    protected String describe() {
        return "lock '" + name + "' (" + sideName() + " side)";
    }

    @Override
    protected final String wakeupChannel(long ownerId) {
        return keys.channel();
    }

    /** Readers and writers wait on one channel: a message must reach a waiter that can enter, so it wakes them all. */
    @Override
    protected final boolean everyMessageWakesAllWaiters() {
        return true;
    }

    /**
     * Removes the lock if it is held in this side's mode (as Redisson does): the write side leaves a read-held lock
     * alone and the read side a write-held one. This client's renewals of the name stop only when it was removed.
     */
    @Override
    protected final CompletableFuture<Boolean> forceRelease() {
        CompletableFuture<Long> reply = services.scripts.run(Scripts.RWLOCK_FORCE_RELEASE, ScriptOutputType.INTEGER,
                releaseKeys, services.publishCommand, sideName(), keys.channel());
        return mapErrors(reply.thenApply(removed -> {
            boolean wasRemoved = removed != null && removed == 1L;
            if (wasRemoved) {
                services.renewer.discardAll(name);
            }
            return wasRemoved;
        }), "forceUnlock");
    }

    /** @return {write locked, read locked, PTTL} in one atomic read */
    private CompletableFuture<long[]> state(String operation) {
        CompletableFuture<List<Object>> reply = services.scripts.run(Scripts.RWLOCK_STATE, ScriptOutputType.MULTI,
                new String[] {name});
        return mapErrors(reply.thenApply(values -> {
            long[] state = new long[3];
            for (int i = 0; i < state.length; i++) {
                state[i] = (Long) values.get(i);
            }
            return state;
        }), operation);
    }

    @Override
    protected final CompletableFuture<Boolean> lockedRaw() {
        return state("isLocked").thenApply(state -> state[side()] == 1L);
    }

    /** The hash's PTTL, except {@code TTL_NOT_LOCKED} while only the other side is held. */
    @Override
    protected final CompletableFuture<Long> ttlRaw() {
        return state("remainTimeToLive").thenApply(state -> {
            boolean otherSideOnly = state[side()] == 0L && state[1 - side()] == 1L;
            return otherSideOnly ? TTL_NOT_LOCKED : state[PTTL];
        });
    }

    @Override
    protected final CompletableFuture<Integer> holdCountRaw(long ownerId) {
        return mapErrors(services.redis.hget(name, holdField(ownerId)).toCompletableFuture()
                .thenApply(count -> count == null ? 0 : Integer.parseInt(count)), "getHoldCount");
    }

    @Override
    protected final String holdKey() {
        return name;
    }
}
