package io.dlock;

import io.dlock.internal.client.RedisLockClient;

/**
 * The entry point: one connection set to Redis, the locks made from it, and its lease renewals.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.connect("redis://localhost:6379")) {
 *     DistributedLock lock = client.getLock("orders:42");
 *     lock.lock();
 *     try { ... } finally { lock.unlock(); }
 * }
 * }</pre>
 *
 * <p>Thread-safe; meant to be one per application. Every hold it writes carries its {@link #getId() id}.
 * Lock objects are cheap and may be fetched per use.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Connects with default settings.
     *
     * @param redisUri one of
     *     <ul>
     *       <li>{@code redis://[user:pass@]host:port[/db]}, or {@code rediss://…} for TLS: one server;</li>
     *       <li>{@code redis-sentinel://[user:pass@]host:port[,host:port…][/db]/?sentinelMasterId=name} (or
     *           {@code rediss-sentinel://…} for TLS): the master
     *           that these Sentinels name, followed through failovers;</li>
     *       <li>{@code redis-cluster://[user:pass@]host:port[,host:port…]}, or {@code rediss-cluster://…} for TLS: a
     *           Redis Cluster, the nodes given being seeds from which the rest is discovered. Every key of a lock
     *           carries the lock's hash tag, so each lock lives on the shard of its name's slot; a name whose
     *           <code>'{'</code> opens no hash tag (<code>a{b</code>) is refused with {@link IllegalArgumentException}
     *           there.</li>
     *     </ul>
     * @throws IllegalArgumentException when {@code redisUri} is none of these
     * @throws ConnectionFailedException when Redis cannot be reached within the command timeout, refuses the
     *                                  credentials, or the TLS handshake fails; its {@code reason()} says which
     * @throws UnsupportedServerException when the server is older than 6.2
     * @see RedisConnection where Redis is as values instead of a URI (with {@link #create})
     */
    static LockClient connect(String redisUri) {
        return create(LockClientConfig.builder().redisUri(redisUri).build());
    }

    /**
     * Connects with the given settings; blocks until connected (at most a few command timeouts).
     *
     * @throws IllegalArgumentException when the URI is not valid, or TLS settings come with a plain-text connection
     * @throws ConnectionFailedException when Redis cannot be reached within the command timeout, refuses the
     *                                  credentials, the TLS handshake fails, or the Redis user may not publish or
     *                                  subscribe on the lock channels (checked with
     *                                  {@link TuningSettings#probeLockName()}); its
     *                                  {@link ConnectionFailedException#reason() reason()} says which, and its
     *                                  message starts with it; messages never show credentials
     * @throws UnsupportedServerException when the server is older than 6.2
     */
    static LockClient create(LockClientConfig config) {
        return RedisLockClient.start(config);
    }

    /**
     * @param name the lock's name, used as its Redis key (not null, not blank)
     * @return a reentrant, non-fair lock; wire-compatible with Redisson's {@code RLock}
     */
    DistributedLock getLock(String name);

    /**
     * @param name the lock's name, used as its Redis key (not null, not blank)
     * @return a reentrant lock granted in FIFO order among the waiters of every client; a waiter keeps its place for
     *         as long as it waits, and one that gives up leaves the line at once. Wire-compatible with Redisson's fair
     *         lock ({@code getFairLock}); a waiter that crashed holds up the line for about the
     *         {@link LockClientConfig#fairLockWaitTimeout() fairLockWaitTimeout} (of every client of the name, which
     *         should be the same)
     */
    DistributedLock getFairLock(String name);

    /**
     * A reentrant read-write lock, wire-compatible with Redisson's {@code RReadWriteLock}: readers share, a writer
     * excludes everybody else; the writer may also read (downgrade), a reader asking to write gets
     * {@link IllegalMonitorStateException} (upgrade). Phase-fair turns among dlock clients
     * ({@link DistributedReadWriteLock}): while a dlock writer waits for the lock, new read acquisitions of dlock
     * clients wait too (a reader that already holds it, and the writer itself, do not), and while a dlock reader waits
     * behind a write hold, new dlock writers wait, so neither side starves; Redisson clients are not held back.
     *
     * @param name the lock's name, used as its Redis key (not null, not blank)
     * @return the lock; cheap, thread-safe
     */
    DistributedReadWriteLock getReadWriteLock(String name);

    /**
     * @param name the lock's name, used as its Redis key (not null, not blank)
     * @return the reentrant lock of {@link #getLock(String)} (same keys: they exclude each other) whose every
     *         acquisition takes a fencing token that strictly increases for the name, also across client restarts and
     *         a Redis restart that lost every key; tokens are shared with Redisson's {@code RFencedLock}. See
     *         {@link FencedLock} for the exact guarantee
     */
    FencedLock getFencedLock(String name);

    /**
     * A candidate in the leader election {@code name}, with the {@linkplain LeaderElectionSettings#defaults() default
     * timing}: see {@link LeaderElection}. Cheap, no round trip; the candidate competes once {@link
     * LeaderElection#start() started}. Each call makes a new candidate with an owner of its own; closing the client
     * closes it.
     *
     * @throws NullPointerException     when {@code name} is null
     * @throws IllegalArgumentException when it is blank (or cannot be used on a Redis Cluster, as for {@link #getLock})
     * @throws LockException            when the client is closed
     */
    default LeaderElection getLeaderElection(String name) {
        return getLeaderElection(name, LeaderElectionSettings.defaults());
    }

    /**
     * A candidate in the leader election {@code name} with the given timing; as {@link #getLeaderElection(String)}.
     *
     * @throws NullPointerException when {@code settings} is null
     */
    LeaderElection getLeaderElection(String name, LeaderElectionSettings settings);

    /**
     * Who leads the election {@code name}, for anyone (no candidate needed): the leader record its winning candidate
     * wrote beside the election's lock (docs/protocol.md §14.4), answered only while that candidate still holds the
     * lock, with the lock's remaining TTL. Read-only, one round trip; blocks for at most the command timeout.
     *
     * <p>What Redis says, not what the leader knows: a leader steps down on its own clock before its key expires
     * (its renew deadline), and a leader that died stays here until its lease runs out. For work that must not overlap,
     * fence it with the term's epoch ({@link LeaderTerm#requireValid()}). A Redisson lock, a plain lock or a fenced
     * lock of the same name held outside an election reads as no leader.
     *
     * @param name the election's name
     * @return the leader; empty when nobody leads
     * @throws NotALockException        when the lock's key or the leader record ({@code dlock_leader:{NAME}}) holds
     *                                  something else; the message names the key and its type
     * @throws LockException            when Redis fails, or the client is closed
     * @throws IllegalArgumentException when the name is blank, or cannot be used on a Redis Cluster
     */
    @Blocking
    java.util.Optional<LeaderInfo> inspectLeader(String name);

    /**
     * Async {@link #inspectLeader(String)}: never blocks; the future completes on the client's executor, or fails with
     * the {@link LockException} that {@code inspectLeader} throws.
     *
     * @throws IllegalArgumentException when the name is blank, or cannot be used on a Redis Cluster
     */
    java.util.concurrent.CompletableFuture<java.util.Optional<LeaderInfo>> inspectLeaderAsync(String name);

    /**
     * Observes who leads the election {@code name}, for anyone (no candidate needed): {@code observer} is told who
     * leads once the observation has subscribed (possibly nobody), then every change, read as {@link
     * #inspectLeader} reads it. Over pub/sub: a win publishes on the election's leader channel and a release on its
     * lock's channel; the observation re-reads on each, after every resubscription of the client (a reconnect), and
     * when the leader's time to live runs out (a leader that died announces nothing). So an observer that starts late
     * or reconnects never misses the current leader; the epochs it is told never go down and no leader is told twice
     * (a reading older than one already applied is dropped). Between changes it may be behind Redis by a round trip,
     * and after a leader died by up to that leader's remaining TTL.
     *
     * <p>Calls come on the client's executor, one at a time and in order; an observer that throws is logged and goes on
     * being told. Never blocks; closing the client closes the observation.
     *
     * @param name     the election's name
     * @param observer told of each change
     * @return the observation; close it to stop
     * @throws NullPointerException     when {@code observer} is null
     * @throws LockException            when the client is closed
     * @throws IllegalArgumentException when the name is blank, or cannot be used on a Redis Cluster
     */
    LeaderObserver.Subscription observeLeader(String name, LeaderObserver observer);

    /**
     * A count-down latch, wire-compatible with Redisson's {@code RCountDownLatch} (dlock and Redisson clients of one
     * name count down and await together), usable on a Redis Cluster under every name, hash-tagged ones included.
     * Cheap; no round trip.
     *
     * @param name the latch's name, used as its Redis key (not null, not blank)
     * @return the latch; thread-safe
     * @throws NullPointerException     when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is blank
     * @throws LockException            when the client is closed
     */
    DistributedCountDownLatch getCountDownLatch(String name);

    /**
     * A multi-lock over {@code locks}: all of them taken as one, all or nothing, in one global order (by name) so that
     * multi-locks over the same locks given in different orders cannot deadlock; {@code unlock()} releases every
     * member even when some fail. See {@link MultiLock}. Cheap; no round trip.
     *
     * @param locks lock objects of this client, of any kinds (plain, fair, fenced, either side of a read-write lock)
     * @return the multi-lock, acting for the calling thread
     * @throws NullPointerException     when {@code locks} or one of them is null
     * @throws IllegalArgumentException when there is none, one is not a lock object of this client (another client's,
     *                                  a multi-lock), or one lock appears twice (the same name twice, except the write
     *                                  and read sides of one read-write lock); the message names it
     */
    default MultiLock getMultiLock(DistributedLock... locks) {
        return getMultiLock(java.util.Arrays.asList(java.util.Objects.requireNonNull(locks, "locks")));
    }

    /** {@link #getMultiLock(DistributedLock...)} over a collection (iterated once, in its order). */
    MultiLock getMultiLock(java.util.Collection<? extends DistributedLock> locks);

    /**
     * A counting semaphore, wire-compatible with Redisson's {@code RSemaphore} ({@code getSemaphore}): dlock and
     * Redisson clients on one name share its permits and wake each other's waiters. Cheap; no round trip. See
     * {@link DistributedSemaphore}.
     *
     * @param name the semaphore's name, used as its Redis key (not null, not blank)
     * @throws IllegalArgumentException when the name is blank, or on a Cluster opens no hash tag with its '{'
     */
    DistributedSemaphore getSemaphore(String name);

    /**
     * A semaphore of leased permits, wire-compatible with Redisson's {@code RPermitExpirableSemaphore}
     * ({@code getPermitExpirableSemaphore}): permit ids cross clients. Permits taken without a lease are renewed by
     * this client's watchdog while it lives, and come back by themselves after a crash. Cheap; no round trip. See
     * {@link LeasedSemaphore}.
     *
     * @param name the semaphore's name, used as its Redis key (not null, not blank)
     * @throws IllegalArgumentException when the name is blank, or on a Cluster opens no hash tag with its '{'
     */
    LeasedSemaphore getLeasedSemaphore(String name);

    /**
     * The lock of {@code kind} named {@code name}: {@link #getLock(String)}, {@link #getFairLock(String)}, a side of
     * {@link #getReadWriteLock(String)} or {@link #getFencedLock(String)}. Cheap; no round trip.
     *
     * @param kind which kind of lock (not null)
     * @param name the lock's name, as for the method of that kind
     * @return a new lock object of that kind
     * @throws NullPointerException     when {@code kind} is null
     * @throws IllegalArgumentException when the method of that kind refuses {@code name}
     */
    default DistributedLock getLock(LockKind kind, String name) {
        return switch (java.util.Objects.requireNonNull(kind, "kind")) {
            case PLAIN -> getLock(name);
            case FAIR -> getFairLock(name);
            case READ -> getReadWriteLock(name).readLock();
            case WRITE -> getReadWriteLock(name).writeLock();
            case FENCED -> getFencedLock(name);
        };
    }

    /**
     * A read-only snapshot of a lock of any kind (plain, fair, read-write, fenced; written by dlock or Redisson), read
     * in one round trip, and a second one when the lock has holders: the cards of the holding clients, which give each
     * holder its {@link LockInfo.Holder#identity() identity} (host, process id, application; empty for a Redisson
     * holder, or when the card is missing or unreadable, which never fails the call). Blocks for at most two command
     * timeouts.
     *
     * <p>A key of another type, or a hash whose fields are not a lock's, is refused with {@link NotALockException}:
     * its message names the lock and the key's type, never a field or a value of it (the script does not even read
     * them back).
     *
     * @throws NotALockException when the key holds something that is not a lock
     * @throws LockException     when Redis fails
     */
    @Blocking
    LockInfo inspect(String name);

    /**
     * Async {@link #inspect(String)}: never blocks; the future completes on the client's executor, or fails with the
     * {@link LockException} that {@code inspect} throws.
     *
     * @throws IllegalArgumentException when {@code name} is not a valid lock name, before anything is sent
     */
    java.util.concurrent.CompletableFuture<LockInfo> inspectAsync(String name);

    /**
     * A read-only snapshot of a semaphore, a {@link DistributedSemaphore} or a {@link LeasedSemaphore} (written by
     * dlock or Redisson): its available permits, the leased permits with their ids and remaining leases, and the
     * count's TTL, read in one round trip by the Redis server's clock. Changes nothing: a leased permit whose lease
     * has ended is reported as such ({@link SemaphoreInfo#expiredPermits()}, counted as available), not given back. A
     * name nobody has set reads as a semaphore without permits ({@link SemaphoreInfo#isSet()} false). Blocks for at
     * most the command timeout.
     *
     * <p>Redis does not record which kind a name is: a plain semaphore, a leased one with no permit out, and a
     * count-down latch are each one string holding an integer; this reads the name as a semaphore.
     *
     * @param name the semaphore's name (not null, not blank)
     * @throws NotALockException        when the name's key is not a permit count (another type, or a string that is
     *                                  not an integer) or its permit table is not a sorted set; the message names the
     *                                  semaphore and the key's type, never its value
     * @throws LockException            when Redis fails, or the client is closed
     * @throws IllegalArgumentException when the name is blank, or on a Cluster opens no hash tag with its '{'
     */
    @Blocking
    SemaphoreInfo inspectSemaphore(String name);

    /**
     * Async {@link #inspectSemaphore(String)}: never blocks; the future completes on the client's executor, or fails
     * with the {@link LockException} that {@code inspectSemaphore} throws.
     *
     * @throws IllegalArgumentException when the name is blank, or on a Cluster opens no hash tag with its '{'
     */
    java.util.concurrent.CompletableFuture<SemaphoreInfo> inspectSemaphoreAsync(String name);

    /**
     * A read-only snapshot of a count-down latch (written by dlock or Redisson): its count and TTL, read in one round
     * trip. A name without a count reads as an open latch. Works on a Cluster for every name, as
     * {@link #getCountDownLatch(String)} does. Blocks for at most the command timeout.
     *
     * @param name the latch's name (not null, not blank)
     * @throws NotALockException        when the name's key is not a latch count (another type, or a string that is
     *                                  not an integer); the message names the latch and the key's type, never its
     *                                  value
     * @throws LockException            when Redis fails, or the client is closed
     * @throws IllegalArgumentException when the name is blank
     */
    @Blocking
    LatchInfo inspectCountDownLatch(String name);

    /**
     * Async {@link #inspectCountDownLatch(String)}: never blocks; the future completes on the client's executor, or
     * fails with the {@link LockException} that {@code inspectCountDownLatch} throws.
     *
     * @throws IllegalArgumentException when the name is blank
     */
    java.util.concurrent.CompletableFuture<LatchInfo> inspectCountDownLatchAsync(String name);

    /**
     * The holds of this client that are known valid now, of every owner and lock kind, from the client's own records
     * (no round trip, never blocks): what a thread would see through {@code isHeldByCurrentThread()} and
     * {@code leaseValidFor()}. A hold being acquired or released at the moment may or may not be listed.
     *
     * @return a snapshot, in no particular order; empty after {@link #close()}
     */
    java.util.List<HeldLock> heldLocks();

    /**
     * A new owner for {@link DistributedLock#as(LockOwner)}: one that is not a thread, so that a hold can be taken on
     * one thread and used or released on others. Its id is negative and never handed out before in this JVM, so it is
     * never the owner of a thread's holds (thread ids are positive) nor of another new owner's. Never blocks, needs no
     * open client, thread-safe. See {@link LockOwner}.
     */
    default LockOwner newOwner() {
        return LockOwner.fresh();
    }

    /** @return this client's UUID, the prefix of every owner field it writes */
    String getId();

    /**
     * @return who this client is: its {@link #getId() id}, host, process id and
     *         {@link LockClientConfig.Builder#applicationName application}. Non-blocking, thread-safe, also after
     *         {@link #close()}.
     */
    ClientIdentity identity();

    /**
     * The settings this client runs with, defaults filled in (the command timeout as derived from the watchdog when
     * none was set), so that tools (a health check, an actuator endpoint) read what the client does rather than
     * re-reading their own properties. Its {@code toString()} hides the URI's password; the accessors do not: do not
     * hand it to untrusted code. Non-blocking, thread-safe, also after {@link #close()}.
     */
    LockClientConfig config();

    /** Adds a listener told about holds of this client that were lost; see {@link LeaseLostListener}. */
    void addLeaseLostListener(LeaseLostListener listener);

    /** Removes a listener added before; no effect if absent. */
    void removeLeaseLostListener(LeaseLostListener listener);

    /**
     * Adds a listener told what this client's locks do as it happens: acquisitions, hand-offs between its owners, and
     * holds that end or are renewed (the events {@code io.dlock.metrics.LockMetrics} records). It is called on the
     * thread of each event and must never block; see {@link LockEventListener} for its contract. It hears only events
     * from now on; a listener added twice hears each event twice. Non-blocking; thread-safe.
     *
     * @throws NullPointerException when {@code listener} is null
     */
    void addEventListener(LockEventListener listener);

    /**
     * Removes one registration of {@code listener}; no effect if it has none. Events being reported on other threads
     * at that moment may still reach it (see {@link LockEventListener}). Non-blocking; thread-safe.
     */
    void removeEventListener(LockEventListener listener);

    /**
     * Stops renewals and closes the connections. Locks still held then expire after their lease, and their owners are
     * told through the lease-lost listeners ({@code RENEWAL_FAILED}, dispatched before the client's own executor shuts
     * down) so that they stop relying on them; {@code leaseValidFor()} is zero from then on. Blocked acquisitions fail
     * with {@link LockException}; what they left in Redis (a fair waiter's place in the queue) is removed first, for
     * at most about the command timeout, before the connections close. Blocks for at most that long; idempotent;
     * never throws.
     */
    @Override
    void close();
}
