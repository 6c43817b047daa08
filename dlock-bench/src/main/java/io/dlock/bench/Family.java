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
            return new Permits() {
                public boolean trySetPermits(int permits) {
                    return s.trySetPermits(permits);
                }

                public void acquire() throws InterruptedException {
                    s.acquire();
                }

                public void release() {
                    s.release();
                }

                public int availablePermits() {
                    return s.availablePermits();
                }
            };
        }
        RSemaphore s = redisson(library).getSemaphore(name);
        return new Permits() {
            public boolean trySetPermits(int permits) {
                return s.trySetPermits(permits);
            }

            public void acquire() throws InterruptedException {
                s.acquire();
            }

            public void release() {
                s.release();
            }

            public int availablePermits() {
                return s.availablePermits();
            }
        };
    }

    /**
     * dlock's {@code acquire()} takes a watchdog-renewed permit (it comes back after a crash); Redisson's takes one
     * that never expires. Both are the no-argument call a user writes.
     */
    static LeasedPermits leasedSemaphore(Library library, String name) {
        if (library instanceof Library.Dlock dlock) {
            var s = dlock.client().getLeasedSemaphore(name);
            return new LeasedPermits() {
                public boolean trySetPermits(int permits) {
                    return s.trySetPermits(permits);
                }

                public Object acquire() throws InterruptedException {
                    return s.acquire();
                }

                public void release(Object permit) {
                    ((Permit) permit).release();
                }
            };
        }
        RPermitExpirableSemaphore s = redisson(library).getPermitExpirableSemaphore(name);
        return new LeasedPermits() {
            public boolean trySetPermits(int permits) {
                return s.trySetPermits(permits);
            }

            public Object acquire() throws InterruptedException {
                return s.acquire();
            }

            public void release(Object permit) {
                s.release((String) permit);
            }
        };
    }

    static Latch latch(Library library, String name) {
        if (library instanceof Library.Dlock dlock) {
            var l = dlock.client().getCountDownLatch(name);
            return new Latch() {
                public boolean trySetCount(long count) {
                    return l.trySetCount(count);
                }

                public void countDown() {
                    l.countDown();
                }

                public void await() throws InterruptedException {
                    l.await();
                }
            };
        }
        RCountDownLatch l = redisson(library).getCountDownLatch(name);
        return new Latch() {
            public boolean trySetCount(long count) {
                return l.trySetCount(count);
            }

            public void countDown() {
                l.countDown();
            }

            public void await() throws InterruptedException {
                l.await();
            }
        };
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

    private static RedissonClient redisson(Library library) {
        if (library instanceof Library.RedissonLibrary r) {
            return r.client();
        }
        throw new UnsupportedOperationException(library.name());
    }
}
