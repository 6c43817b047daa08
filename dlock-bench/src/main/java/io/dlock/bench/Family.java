package io.dlock.bench;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.Permit;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.function.IntSupplier;
import java.util.function.LongPredicate;

/**
 * The rest of the family (semaphore, leased semaphore, count-down latch, multi-lock) seen the same way for dlock and
 * Redisson, so that one scenario body runs against each. Each adapter is a thin pass-through: no caching, no
 * batching, nothing that one library gets and the other does not.
 */
final class Family {
    private Family() {
    }

    /** A counting semaphore: one permit at a time. */
    interface Permits {
        boolean trySetPermits(int permits);

        void acquire() throws InterruptedException;

        void release();

        int availablePermits();
    }

    /** A semaphore whose permits have ids; {@link #acquire()} returns what {@link #release(Object)} gives back. */
    interface LeasedPermits {
        boolean trySetPermits(int permits);

        Object acquire() throws InterruptedException;

        void release(Object permit);
    }

    /** A count-down latch. */
    interface Latch {
        boolean trySetCount(long count);

        void countDown();

        void await() throws InterruptedException;
    }

    static Permits semaphore(Library library, String name) {
        if (library instanceof Library.Dlock dlock) {
            var s = dlock.client().getSemaphore(name);
            return permits(s::trySetPermits, s::acquire, s::release, s::availablePermits);
        }
        RSemaphore s = redisson(library).getSemaphore(name);
        return permits(s::trySetPermits, s::acquire, s::release, s::availablePermits);
    }

    /**
     * dlock's {@code acquire()} takes a watchdog-renewed permit (it comes back after a crash); Redisson's takes one
     * that never expires. Both are the no-argument call a user writes.
     */
    static LeasedPermits leasedSemaphore(Library library, String name) {
        if (library instanceof Library.Dlock dlock) {
            var s = dlock.client().getLeasedSemaphore(name);
            return leasedPermits(s::trySetPermits, s::acquire, permit -> ((Permit) permit).release());
        }
        RPermitExpirableSemaphore s = redisson(library).getPermitExpirableSemaphore(name);
        return leasedPermits(s::trySetPermits, s::acquire, permit -> s.release((String) permit));
    }

    static Latch latch(Library library, String name) {
        if (library instanceof Library.Dlock dlock) {
            var l = dlock.client().getCountDownLatch(name);
            return latch(l::trySetCount, l::countDown, l::await);
        }
        RCountDownLatch l = redisson(library).getCountDownLatch(name);
        return latch(l::trySetCount, l::countDown, l::await);
    }

    /** A multi-lock over plain locks of {@code names}, given in that order. */
    static Lock multiLock(Library library, String... names) {
        if (library instanceof Library.Dlock dlock) {
            LockClient client = dlock.client();
            DistributedLock[] members = new DistributedLock[names.length];
            for (int i = 0; i < names.length; i++) {
                members[i] = client.getLock(names[i]);
            }
            return client.getMultiLock(members);
        }
        RedissonClient client = redisson(library);
        RLock[] members = new RLock[names.length];
        for (int i = 0; i < names.length; i++) {
            members[i] = client.getLock(names[i]);
        }
        return client.getMultiLock(members);
    }

    /** The adapter over one library's semaphore: each call passes straight to the given one. */
    private static Permits permits(IntPredicate trySetPermits, Blocking acquire, Runnable release,
                                   IntSupplier availablePermits) {
        return new Permits() {
            public boolean trySetPermits(int permits) {
                return trySetPermits.test(permits);
            }

            public void acquire() throws InterruptedException {
                acquire.run();
            }

            public void release() {
                release.run();
            }

            public int availablePermits() {
                return availablePermits.getAsInt();
            }
        };
    }

    /** The adapter over one library's leased semaphore: each call passes straight to the given one. */
    private static LeasedPermits leasedPermits(IntPredicate trySetPermits, BlockingSupplier<?> acquire,
                                               Consumer<Object> release) {
        return new LeasedPermits() {
            public boolean trySetPermits(int permits) {
                return trySetPermits.test(permits);
            }

            public Object acquire() throws InterruptedException {
                return acquire.get();
            }

            public void release(Object permit) {
                release.accept(permit);
            }
        };
    }

    /** The adapter over one library's count-down latch: each call passes straight to the given one. */
    private static Latch latch(LongPredicate trySetCount, Runnable countDown, Blocking await) {
        return new Latch() {
            public boolean trySetCount(long count) {
                return trySetCount.test(count);
            }

            public void countDown() {
                countDown.run();
            }

            public void await() throws InterruptedException {
                await.run();
            }
        };
    }

    /** A library call that may block, and so be interrupted. */
    @FunctionalInterface
    private interface Blocking {
        void run() throws InterruptedException;
    }

    /** A library call that may block, and so be interrupted, with a result. */
    @FunctionalInterface
    private interface BlockingSupplier<T> {
        T get() throws InterruptedException;
    }

    private static RedissonClient redisson(Library library) {
        if (library instanceof Library.RedissonLibrary r) {
            return r.client();
        }
        throw new UnsupportedOperationException(library.name());
    }
}
