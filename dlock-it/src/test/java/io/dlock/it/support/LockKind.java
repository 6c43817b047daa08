package io.dlock.it.support;

import io.dlock.DistributedLock;
import io.dlock.LockClient;

import java.util.function.BiFunction;

/** Every lock kind a test may run on, each made from a client and a name. */
public enum LockKind {
    PLAIN(LockClient::getLock),
    FAIR(LockClient::getFairLock),
    FENCED(LockClient::getFencedLock),
    WRITE((client, name) -> client.getReadWriteLock(name).writeLock()),
    READ((client, name) -> client.getReadWriteLock(name).readLock());

    private final BiFunction<LockClient, String, DistributedLock> make;

    LockKind(BiFunction<LockClient, String, DistributedLock> make) {
        this.make = make;
    }

    /** @return a lock of this kind named {@code name} on {@code client} */
    public DistributedLock make(LockClient client, String name) {
        return make.apply(client, name);
    }
}
