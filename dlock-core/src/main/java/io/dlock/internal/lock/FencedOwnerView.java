package io.dlock.internal.lock;

import io.dlock.FencedLock;
import io.dlock.LockOwner;

import java.util.Objects;

/**
 * A fenced lock ({@link OwnerView} over a lock whose protocol is a {@link FencedProtocol}) acting for the calling
 * thread or for one fixed owner; its tokens are that owner's ({@link FencedTokens}).
 */
final class FencedOwnerView extends OwnerView implements FencedTokens {

    FencedOwnerView(RedisLock lock, long ownerId, boolean callingThread) {
        super(lock, ownerId, callingThread);
    }

    @Override
    public FencedLock as(LockOwner owner) {
        return new FencedOwnerView(core(), Objects.requireNonNull(owner, "owner").id(), false);
    }

    @Override
    public RedisLock fencedCore() {
        return core();
    }

    @Override
    public long tokenOwner() {
        return owner();
    }
}
