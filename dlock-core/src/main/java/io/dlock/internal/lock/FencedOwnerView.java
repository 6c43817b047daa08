package io.dlock.internal.lock;

import io.dlock.FencedLock;
import io.dlock.LockOwner;

/** A {@link FencedRedisLock} acting for one fixed owner ({@link OwnerView}); its tokens are that owner's. */
final class FencedOwnerView extends OwnerView implements FencedTokens {
    private final FencedRedisLock fenced;

    FencedOwnerView(FencedRedisLock lock, long ownerId) {
        super(lock, ownerId);
        this.fenced = lock;
    }

    @Override
    public FencedLock as(LockOwner owner) {
        return (FencedLock) super.as(owner);
    }

    @Override
    public FencedRedisLock fencedLock() {
        return fenced;
    }

    @Override
    public long tokenOwner() {
        return owner();
    }
}
