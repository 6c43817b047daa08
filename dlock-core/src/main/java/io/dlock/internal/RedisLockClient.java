package io.dlock.internal;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;

/** Placeholder while the implementation is written. */
public final class RedisLockClient {
    private RedisLockClient() {
    }

    public static LockClient start(LockClientConfig config) {
        throw new UnsupportedOperationException("not yet");
    }
}
