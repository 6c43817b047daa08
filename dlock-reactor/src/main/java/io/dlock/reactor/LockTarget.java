package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.LockOwner;
import io.dlock.MultiLock;
import reactor.core.publisher.Mono;

import java.util.concurrent.TimeUnit;

/**
 * What a {@link ReactiveLock} stands for, as a type: a lock with a key of its own (plain, fair, a side of a read-write
 * lock), a fenced lock (whose holds carry tokens), or a multi-lock (no key of its own). Each kind says how one
 * acquisition starts and how the lock is inspected, so that {@link ReactiveLock} needs no flag and no cast.
 */
sealed interface LockTarget {

    /** @return the core lock */
    DistributedLock lock();

    /** Starts one acquisition for {@code owner} (never blocks); its grant is the hold, or null for "not acquired". */
    Grants.Started<ReactiveHold> start(LockClient client, LockOwner owner, long waitMs, long leaseMs);

    /** @return the lock's snapshot ({@link LockClient#inspectAsync}) */
    Mono<LockInfo> inspect(LockClient client);

    /** A lock with a key of its own; {@code inspectName} is that key (a read-write lock's for either side). */
    record Keyed(DistributedLock lock, String inspectName) implements LockTarget {
        @Override
        public Grants.Started<ReactiveHold> start(LockClient client, LockOwner owner, long waitMs, long leaseMs) {
            return startPlain(lock, client, owner, waitMs, leaseMs);
        }

        @Override
        public Mono<LockInfo> inspect(LockClient client) {
            return Grants.call(() -> client.inspectAsync(inspectName));
        }
    }

    /** A fenced lock: each hold carries the token its acquisition drew. */
    record Fenced(FencedLock lock) implements LockTarget {
        @Override
        public Grants.Started<ReactiveHold> start(LockClient client, LockOwner owner, long waitMs, long leaseMs) {
            FencedLock view = lock.as(owner);
            return Grants.Started.of(waitMs == DistributedLock.WAIT_FOREVER
                            ? view.lockAndGetTokenAsync(leaseMs, TimeUnit.MILLISECONDS)
                            : view.tryLockAndGetTokenAsync(waitMs, leaseMs, TimeUnit.MILLISECONDS),
                    token -> token == null ? null : ReactiveHold.fenced(client, view, owner, token));
        }

        @Override
        public Mono<LockInfo> inspect(LockClient client) {
            return Grants.call(() -> client.inspectAsync(lock.getName()));
        }
    }

    /** A multi-lock: held by one owner on every member; it has no key of its own to inspect. */
    record Multi(MultiLock lock) implements LockTarget {
        @Override
        public Grants.Started<ReactiveHold> start(LockClient client, LockOwner owner, long waitMs, long leaseMs) {
            return startPlain(lock, client, owner, waitMs, leaseMs);
        }

        @Override
        public Mono<LockInfo> inspect(LockClient client) {
            return Mono.error(() -> new UnsupportedOperationException(lock.getName()
                    + ": a multi-lock has no key of its own; inspect its members"));
        }
    }

    private static Grants.Started<ReactiveHold> startPlain(DistributedLock lock, LockClient client, LockOwner owner,
                                                            long waitMs, long leaseMs) {
        DistributedLock view = lock.as(owner);
        if (waitMs == DistributedLock.WAIT_FOREVER) {
            return Grants.Started.of(view.lockAsync(leaseMs, TimeUnit.MILLISECONDS),
                    done -> ReactiveHold.of(client, view, owner));
        }
        return Grants.Started.of(view.tryLockAsync(waitMs, leaseMs, TimeUnit.MILLISECONDS),
                held -> held ? ReactiveHold.of(client, view, owner) : null);
    }
}
