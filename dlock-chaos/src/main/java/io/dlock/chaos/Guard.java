package io.dlock.chaos;

import io.dlock.DistributedLock;
import io.dlock.DistributedSemaphore;
import io.dlock.FencedLock;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * What one hold of a {@link LockLoop} takes and gives back: a lock (one side of the read-write lock), a multi-lock,
 * a plain semaphore permit or a leased {@link Permit}. One per hold; not thread-safe.
 *
 * <p>Acquisition modes, as the loop draws them: {@code wait} (up to {@value Worker#WAIT_MS} ms, watchdog lease),
 * {@code try} (one attempt, watchdog lease), {@code lease} (up to the wait, a fixed lease as long as the watchdog
 * timeout). The plain semaphore has no lease: its modes only differ in the wait.
 */
interface Guard {

    /** @return what the ACQUIRED detail adds after the mode: {@code  read}, {@code  write}, {@code  names=a,b} or "" */
    String describe();

    /** @return whether this is a read hold of the read-write lock (readers may share) */
    boolean read();

    /**
     * @return what {@link #setUp()} does, for the loop's {@code SETUP_START} ({@code set-permits count=3}), or null
     *         when there is nothing to set up (the locks)
     */
    default String setUpDescription() {
        return null;
    }

    /**
     * Sets the object up before an attempt if it is not ({@code trySetPermits}: a no-op once set, so that the count
     * comes back after a Redis restart).
     *
     * @return whether this call set it
     */
    default boolean setUp() {
        return false;
    }

    /**
     * @return the lock hashes a {@link HoldProbe} looks in for this hold: the multi-lock's members, else the lock's
     *         name
     */
    default List<String> probedKeys(Workload kind) {
        return List.of(kind.lockName());
    }

    /** @return whether it was taken within the mode's wait (the lock call's answer) */
    boolean acquire(String mode, long watchdogMs) throws InterruptedException;

    /** @return the fencing token of the hold just taken, or null for every guard but the fenced lock's */
    default Long token() {
        return null;
    }

    /**
     * @return how long the hold is known to last, in ms: {@code leaseValidFor()}; for the plain semaphore, whose
     * permit has no lease and lasts until it is released, {@link #NO_LEASE_MS}
     */
    long validMs();

    /** @return true when the hold was given back while held, false when it was gone already (lock: IMSE) */
    boolean release();

    /** What a plain-semaphore permit claims: it lasts until released (an hour, far past any run's hold). */
    long NO_LEASE_MS = 3_600_000;

    /** @return the guard of the next hold of a loop of {@code kind} */
    static Guard next(Workload kind, LockClient client, Random random) {
        String name = kind.lockName();
        return switch (kind) {
            case PLAIN -> new OfLock(client.getLock(name), "", false);
            case FAIR -> new OfLock(client.getFairLock(name), "", false);
            case FENCED -> new OfLock(client.getFencedLock(name), "", false);
            case READ_WRITE -> random.nextBoolean()
                    ? new OfLock(client.getReadWriteLock(name).writeLock(), " write", false)
                    : new OfLock(client.getReadWriteLock(name).readLock(), " read", true);
            case MULTI -> multi(client, random);
            case SEMAPHORE -> new OfSemaphore(client.getSemaphore(name));
            case LEASED -> new OfLeased(client.getLeasedSemaphore(name));
            case LATCH -> throw new IllegalArgumentException("the latch takes no holds: see LatchLoop");
            case RX_LOCK, RX_LEASED, MULTI_CANCEL -> throw new IllegalArgumentException(kind.label()
                    + " cancels its acquisitions: see ReactiveLoop and CancelLoop");
        };
    }

    /**
     * Two or three of the members on separate slots (taken one after another) or on one slot (taken in one script),
     * half and half, in a random order (the multi-lock takes them in its own global order).
     */
    private static Guard multi(LockClient client, Random random) {
        List<String> names = new ArrayList<>(random.nextBoolean() ? Workload.MULTI_SPREAD : Workload.MULTI_ONE_SLOT);
        Collections.shuffle(names, random);
        names = names.subList(0, 2 + random.nextInt(2));
        List<DistributedLock> members = new ArrayList<>();
        for (String n : names) {
            members.add(client.getLock(n));
        }
        return new OfLock(client.getMultiLock(members), " names=" + String.join(",", names), false, names);
    }

    /** A lock of any kind, a multi-lock included. */
    final class OfLock implements Guard {
        private final DistributedLock lock;
        private final String describe;
        private final boolean read;
        /** A multi-lock's members, else null. */
        private final List<String> members;
        private Long token;

        OfLock(DistributedLock lock, String describe, boolean read) {
            this(lock, describe, read, null);
        }

        OfLock(DistributedLock lock, String describe, boolean read, List<String> members) {
            this.lock = lock;
            this.describe = describe;
            this.read = read;
            this.members = members;
        }

        @Override
        public List<String> probedKeys(Workload kind) {
            return members != null ? members : List.of(kind.lockName());
        }

        public String describe() {
            return describe;
        }

        public boolean read() {
            return read;
        }

        public boolean acquire(String mode, long watchdogMs) throws InterruptedException {
            long wait = Worker.WAIT_MS;
            if (lock instanceof FencedLock fenced) {
                token = mode.startsWith("wait")
                        ? fenced.tryLockAndGetToken(wait, DistributedLock.LEASE_WATCHDOG, TimeUnit.MILLISECONDS)
                        : mode.startsWith("try") ? fenced.tryLockAndGetToken()
                        : fenced.tryLockAndGetToken(wait, watchdogMs, TimeUnit.MILLISECONDS);
                return token != null;
            }
            return mode.startsWith("wait") ? lock.tryLock(wait, DistributedLock.LEASE_WATCHDOG, TimeUnit.MILLISECONDS)
                    : mode.startsWith("try") ? lock.tryLock()
                    : lock.tryLock(wait, watchdogMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public Long token() {
            return token;
        }

        public long validMs() {
            return lock.leaseValidFor().toMillis();
        }

        public boolean release() {
            try {
                lock.unlock();
                return true;
            } catch (IllegalMonitorStateException gone) {
                return false;
            }
        }
    }

    /**
     * A permit of either semaphore: neither side of a read-write lock, nothing to describe. Before each attempt the
     * loop sets the permits if the semaphore has none ({@link #setUp()}, {@code trySetPermits}: a no-op once set), so
     * that the count comes back after a Redis restart.
     */
    abstract class OfPermits implements Guard {
        private final Workload kind;

        /** @param kind {@link Workload#SEMAPHORE} or {@link Workload#LEASED}: how many permits to set */
        OfPermits(Workload kind) {
            this.kind = kind;
        }

        /** The semaphore's own {@code trySetPermits}. */
        abstract boolean trySetPermits(int permits);

        public String describe() {
            return "";
        }

        public boolean read() {
            return false;
        }

        @Override
        public String setUpDescription() {
            return "set-permits count=" + kind.permits();
        }

        @Override
        public boolean setUp() {
            return trySetPermits(kind.permits());
        }
    }

    /** One permit of the plain semaphore, set up as {@link OfPermits}. */
    final class OfSemaphore extends OfPermits {
        private final DistributedSemaphore semaphore;

        OfSemaphore(DistributedSemaphore semaphore) {
            super(Workload.SEMAPHORE);
            this.semaphore = semaphore;
        }

        @Override
        boolean trySetPermits(int permits) {
            return semaphore.trySetPermits(permits);
        }

        public boolean acquire(String mode, long watchdogMs) throws InterruptedException {
            return mode.startsWith("try") ? semaphore.tryAcquire()
                    : semaphore.tryAcquire(1, Duration.ofMillis(Worker.WAIT_MS));
        }

        public long validMs() {
            return NO_LEASE_MS;
        }

        public boolean release() {
            semaphore.release();
            return true;
        }
    }

    /** One leased permit: a watchdog-renewed one ({@code wait}, {@code try}) or one with a fixed lease. */
    final class OfLeased extends OfPermits {
        private final LeasedSemaphore semaphore;
        private Permit permit;

        OfLeased(LeasedSemaphore semaphore) {
            super(Workload.LEASED);
            this.semaphore = semaphore;
        }

        @Override
        boolean trySetPermits(int permits) {
            return semaphore.trySetPermits(permits);
        }

        public boolean acquire(String mode, long watchdogMs) throws InterruptedException {
            permit = (mode.startsWith("wait") ? semaphore.tryAcquire(Duration.ofMillis(Worker.WAIT_MS), null)
                    : mode.startsWith("try") ? semaphore.tryAcquire()
                    : semaphore.tryAcquire(Duration.ofMillis(Worker.WAIT_MS), Duration.ofMillis(watchdogMs)))
                    .orElse(null);
            return permit != null;
        }

        public long validMs() {
            return permit.leaseValidFor().toMillis();
        }

        public boolean release() {
            return permit.release();
        }
    }
}
