package io.dlock.spring;

import io.dlock.LockClient;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} whose locks are dlock locks,
 * a drop-in for {@code RedisLockRegistry}: replace the registry bean, keep the code that uses it.
 *
 * <pre>{@code
 * @Bean
 * DlockLockRegistry lockRegistry(LockClient client) {   // was: new RedisLockRegistry(connectionFactory, "app")
 *     return new DlockLockRegistry(client, "app", null); // or new DlockLockRegistry(client)
 * }
 * }</pre>
 *
 * <p><b>Locks.</b> {@link #obtain(Object)} takes a {@code String} key and returns the lock named
 * {@code prefix:key} (or {@code key} without a prefix), a non-fair dlock {@link io.dlock.LockClient#getLock lock}
 * shared with every registry, {@code LockClient} and Redisson client on the same Redis. As with
 * {@code RedisLockRegistry}, each lock is reentrant per thread, threads of this JVM queue for it locally before one of
 * them goes to Redis, {@code unlock()} by a thread that does not hold it throws {@link IllegalStateException}, and an
 * {@code unlock()} that finds the hold gone from Redis (its lease ran out, or it was removed) throws
 * {@link java.util.ConcurrentModificationException}: what the lock protected may have been changed by someone else.
 * A re-entry never succeeds on a hold Redis no longer has: it checks the hold in Redis (one round trip, as
 * {@code RedisLockRegistry}'s re-entry costs one); when the hold is gone, a nested {@code tryLock} returns false and a
 * nested {@code lock()} or {@code lockInterruptibly()} throws {@link java.util.ConcurrentModificationException},
 * counting nothing (the outer {@code unlock()} then reports the loss). With {@link #setForgetLostHolds} the failed
 * re-entry also gives up the thread's outer hold, so that its next acquisition is a fresh one: what Spring
 * Integration's {@code LockRegistryLeaderInitiator} needs to run for leadership again after a loss.
 * Redis failures throw {@link io.dlock.LockException}. Conditions are not supported.
 *
 * <p><b>Leases.</b> Built without a lease, holds use dlock's watchdog: renewed while held, expiring a watchdog timeout
 * (30 s by default, see {@link io.dlock.LockClientConfig}) after the holder died. Built with a lease, every hold gets
 * that fixed lease ({@link DistributedLock#lock(Duration)} and {@link DistributedLock#tryLock(Duration, Duration)}
 * choose another per hold) and {@link #renewLock} extends it, never letting the lock go in between.
 *
 * <p><b>Cache.</b> Lock objects are cached per key, at most {@link #setCacheCapacity cacheCapacity} of them (100,000
 * by default; {@code RedisLockRegistry}'s default is 256 in Spring Integration 7.0.5, the version Spring Boot 4.0.7
 * manages, and 100,000 in the other 7.0.x releases): when an {@link #obtain} goes over it, the least recently
 * obtained locks that no thread of this JVM holds or waits for are dropped. {@link #expireUnusedOlderThan(long)}
 * drops those not in use and last acquired longer ago. Dropping is always safe: the hold in Redis belongs to the thread, so an old and a
 * new object for one key still exclude each other (and a thread holding one re-enters through the other).
 *
 * <p><b>Two registries on one client share a thread's holds</b>, unlike two {@code RedisLockRegistry}s: a thread that
 * holds {@code "orders:1"} through one {@code DlockLockRegistry} re-enters it through a second registry on the same
 * {@link LockClient} (with the same prefix) instead of being refused. A dlock hold belongs to the client and the
 * thread ({@code <client id>:<thread id>} in Redis, as in Redisson), not to a registry object, so every lock object,
 * registry and {@code LockClient} call of that thread and client is the same owner; each {@code RedisLockRegistry}
 * instead writes its own random client id into its keys. To have two registries exclude each other as two
 * applications do, give each its own {@code LockClient}.
 *
 * <p>Thread-safe. The registry does not close the client.
 */
public class DlockLockRegistry implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

    private final LockClient client;
    private final String prefix;
    /** Null: the watchdog. */
    private final Duration leaseTime;
    /** Access order: the least recently obtained first. Guarded by itself. */
    private final LinkedHashMap<String, DlockRegistryLock> locks = new LinkedHashMap<>(16, 0.75f, true);
    private volatile int cacheCapacity = DEFAULT_CACHE_CAPACITY;
    private volatile boolean forgetLostHolds;

    /**
     * The default {@linkplain #setCacheCapacity cache capacity}: 100,000 lock objects. ({@code RedisLockRegistry}'s is
     * 256 in Spring Integration 7.0.5, 100,000 in 7.0.0 to 7.0.4 and from 7.0.6.)
     */
    public static final int DEFAULT_CACHE_CAPACITY = 100_000;

    /**
     * Watchdog leases, lock names equal to the keys.
     *
     * @throws NullPointerException when {@code client} is null
     */
    public DlockLockRegistry(LockClient client) {
        this(client, null, null);
    }

    /**
     * Fixed leases, lock names equal to the keys.
     *
     * @param leaseTime every hold's lease (at least 1 ms), or null for the watchdog
     * @throws IllegalArgumentException when {@code leaseTime} is zero, negative or longer than
     *                                  {@link io.dlock.DistributedLock#MAX_LEASE}
     */
    public DlockLockRegistry(LockClient client, Duration leaseTime) {
        this(client, null, leaseTime);
    }

    /**
     * @param prefix    put before each key with a {@code ':'} (as {@code RedisLockRegistry}'s registry key), or null or
     *                  empty for none
     * @param leaseTime every hold's lease, or null for the watchdog
     * @throws IllegalArgumentException when {@code leaseTime} is out of range (see above) or {@code prefix} is blank
     *                                  but not empty
     */
    public DlockLockRegistry(LockClient client, String prefix, Duration leaseTime) {
        this.client = Objects.requireNonNull(client, "client");
        if (prefix != null && !prefix.isEmpty() && prefix.isBlank()) {
            throw new IllegalArgumentException("prefix must not be blank: \"" + prefix + "\"");
        }
        this.prefix = prefix == null || prefix.isEmpty() ? "" : prefix + ":";
        if (leaseTime != null) {
            DlockRegistryLock.checkLease(leaseTime, "leaseTime", "DlockLockRegistry");
        }
        this.leaseTime = leaseTime;
    }

    /**
     * @param lockKey a {@code String}, not blank
     * @return the cached lock of that key (a new one after it was expired from the cache); never blocks on Redis
     * @throws IllegalArgumentException when the key is not a non-blank {@code String}
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return lockOf(lockKey);
    }

    private DlockRegistryLock lockOf(Object lockKey) {
        if (!(lockKey instanceof String key) || key.isBlank()) {
            throw new IllegalArgumentException("DlockLockRegistry: the lock key must be a non-blank String, not "
                    + (lockKey == null ? "null" : lockKey.getClass().getName() + " \"" + lockKey + "\""));
        }
        synchronized (locks) {
            DlockRegistryLock lock = locks.computeIfAbsent(key,
                    k -> new DlockRegistryLock(client.getLock(prefix + k), leaseTime, () -> forgetLostHolds));
            if (locks.size() > cacheCapacity) {
                evictLeastRecentlyUsed(lock);
            }
            return lock;
        }
    }

    /** Drops the least recently obtained locks not in use (never {@code keep}) until the cache fits its capacity. */
    private void evictLeastRecentlyUsed(DlockRegistryLock keep) {
        Iterator<DlockRegistryLock> eldestFirst = locks.values().iterator();
        while (locks.size() > cacheCapacity && eldestFirst.hasNext()) {
            DlockRegistryLock lock = eldestFirst.next();
            if (lock != keep && !lock.isInUseInThisProcess()) {
                eldestFirst.remove();
            }
        }
    }

    /**
     * Sets how many lock objects the registry caches (default {@link #DEFAULT_CACHE_CAPACITY}). It applies from the
     * next {@link #obtain}, which drops the least recently obtained locks that no thread of this JVM holds or waits
     * for until the cache fits; locks in use are never dropped, so the cache may hold more while more are in use.
     * Nothing in Redis changes. Thread-safe; never blocks on Redis.
     *
     * @param cacheCapacity at least 1
     * @throws IllegalArgumentException when {@code cacheCapacity} is less than 1
     */
    public void setCacheCapacity(int cacheCapacity) {
        if (cacheCapacity < 1) {
            throw new IllegalArgumentException("DlockLockRegistry: cacheCapacity must be at least 1, not "
                    + cacheCapacity);
        }
        this.cacheCapacity = cacheCapacity;
    }

    /**
     * Whether a re-entry that finds the thread's hold gone from Redis also gives up the thread's outer hold; off by
     * default. Either way the re-entry fails (a nested {@code tryLock} returns false, a nested {@code lock()} throws
     * {@link java.util.ConcurrentModificationException}) and counts nothing: the thread learns of the loss. Off, the
     * thread keeps its outer hold in this JVM until it calls {@code unlock()}, which reports the loss; until then its
     * further acquisitions are re-entries, which fail too (nothing is taken again behind the code that held). On, the
     * thread's whole hold is let go at once (this JVM's other threads may take the lock, and the thread's next
     * acquisition is a fresh one, which takes the lock when it is free); each {@code unlock()} owed for the holds let go
     * throws {@link java.util.ConcurrentModificationException}, as the outer one would have.
     * <p>
     * Turn it on for Spring Integration's {@code LockRegistryLeaderInitiator}: its selector re-enters the lock at each
     * heart-beat and, when that fails, revokes leadership without unlocking; off, the revoked instance keeps the stale
     * outer hold and never runs for leadership again (over {@code RedisLockRegistry} it does, because that re-entry
     * takes the free key again silently, which this registry never does). {@link DlockLeaderInitiator} needs neither.
     * Applies to the locks obtained before and after the call. Thread-safe; never blocks.
     */
    public void setForgetLostHolds(boolean forgetLostHolds) {
        this.forgetLostHolds = forgetLostHolds;
    }

    /** @return the {@linkplain #setCacheCapacity cache capacity} */
    public int getCacheCapacity() {
        return cacheCapacity;
    }

    /**
     * Drops from the cache the locks that no thread of this JVM holds or waits for and that were last acquired (or
     * created) at least {@code age} ms ago. Nothing in Redis changes.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        synchronized (locks) {
            locks.values().removeIf(lock -> lock.unusedFor(now) >= age * 1_000_000L && !lock.isInUseInThisProcess());
        }
    }

    /**
     * Renews the current thread's hold of {@code lockKey} with this registry's lease: sets its time to live to the
     * lease, counted from now, in one atomic step that never frees the lock
     * ({@link io.dlock.DistributedLock#extendLease}). With the watchdog (no lease) the hold is renewed anyway; this
     * only checks it. Blocks for one round trip.
     *
     * @throws IllegalStateException when the current thread does not hold the lock, or its hold is gone from Redis
     *                               (its lease ran out, or it was removed): the lock is not taken again
     * @throws io.dlock.LockException when Redis fails; the hold may or may not have been renewed
     */
    @Override
    public void renewLock(Object lockKey) {
        lockOf(lockKey).renew(leaseTime);
    }

    /**
     * Renews the current thread's hold of {@code lockKey}: its time to live becomes {@code ttl}, counted from now
     * (also when shorter than what was left), in one atomic step that never frees the lock
     * ({@link io.dlock.DistributedLock#extendLease}). The hold then has that fixed lease, also in a registry with the
     * watchdog: the watchdog no longer renews it (the thread's next acquisition after its unlock is renewed again).
     * Blocks for one round trip.
     *
     * @throws IllegalStateException    when the current thread does not hold the lock, or its hold is gone from Redis
     *                                  (its lease ran out, or it was removed): the lock is not taken again
     * @throws IllegalArgumentException when {@code ttl} is shorter than 1 ms or out of range
     * @throws io.dlock.LockException   when Redis fails; the hold may or may not have been renewed
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        DlockRegistryLock.checkLease(ttl, "ttl", "DlockLockRegistry.renewLock");
        lockOf(lockKey).renew(ttl);
    }

    /**
     * Accepted and unused when the registry has watchdog leases (the watchdog already renews every hold). With fixed
     * leases, automatic renewal is what the watchdog is for, so this refuses rather than leave holds to expire.
     *
     * @throws UnsupportedOperationException when the registry was built with a fixed lease
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        if (leaseTime != null) {
            throw new UnsupportedOperationException("DlockLockRegistry renews holds with dlock's watchdog: build it "
                    + "without a lease (new DlockLockRegistry(client)) instead of setting a renewal scheduler; the "
                    + "watchdog lease is the client's LockClientConfig.watchdogTimeout");
        }
    }

    /** @return the number of cached lock objects */
    int cachedLocks() {
        synchronized (locks) {
            return locks.size();
        }
    }

    /** @return the keys of the cached lock objects, the least recently obtained first */
    List<String> cachedKeys() {
        synchronized (locks) {
            return new ArrayList<>(locks.keySet());
        }
    }

    @Override
    public String toString() {
        return "DlockLockRegistry[prefix=" + (prefix.isEmpty() ? "none" : prefix) + ", lease="
                + (leaseTime == null ? "watchdog" : leaseTime) + "]";
    }
}
