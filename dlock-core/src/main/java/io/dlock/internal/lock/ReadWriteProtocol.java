package io.dlock.internal.lock;

import io.dlock.internal.script.ScriptCall;

import java.util.concurrent.CompletableFuture;

/**
 * A side of a read-write lock ({@link ReadProtocol}, {@link WriteProtocol}): what both sides do alike is answered by
 * their {@link ReadWriteSide} here, once; each side adds its attempt, release, give-up, extension and hold field.
 */
interface ReadWriteProtocol extends LockProtocol {
    /** @return the keys, fields and shared steps of this side */
    ReadWriteSide side();

    @Override
    default LockContext context() {
        return side().context;
    }

    @Override
    default ScriptCall forceRelease() {
        return side().forceRelease();
    }

    /** The forced release leaves a lock held in the other side's mode alone. */
    @Override
    default boolean forceReleaseOnlyInOwnMode() {
        return true;
    }

    @Override
    default ScriptCall withdrawMark(long ownerId) {
        return side().withdrawMark(holdField(ownerId));
    }

    @Override
    default String otherSideField(long ownerId) {
        return side().side == ReadWriteSide.Side.READ ? side().writerField(ownerId) : side().readerField(ownerId);
    }

    /** Readers and writers wait on one channel, {@code redisson_rwlock:{NAME}}. */
    @Override
    default String wakeupChannel(long ownerId) {
        return side().keys.channel();
    }

    /** A message must reach a waiter that can enter (a reader or a writer), so it wakes them all. */
    @Override
    default boolean everyMessageWakesAllWaiters() {
        return true;
    }

    @Override
    default CompletableFuture<Boolean> locked() {
        return side().locked();
    }

    @Override
    default CompletableFuture<Long> ttl() {
        return side().ttl();
    }
}
