package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The Reactor face of a {@link LockClient}: the same locks, semaphores and latches, with {@code Mono}-returning
 * methods whose holder is a subscription, not a thread (Redisson's {@code RedissonReactiveClient}). It adds no
 * connection, thread or state of its own: every object it hands out works through the client's asynchronous methods,
 * so the client's settings, listeners, metrics and {@link LockClient#close() close()} apply, and a hold taken here
 * is one that {@link LockClient#heldLocks()} lists.
 *
 * <pre>{@code
 * ReactiveLockClient locks = ReactiveLockClient.of(client);
 * Flux<Row> rows = locks.getLock("reports").withLock(hold -> repository.export());  // held while export() runs
 * }</pre>
 *
 * <p>The getters never block and send nothing; the objects are cheap and may be fetched per use. Thread-safe.
 */
public final class ReactiveLockClient {
    private final LockClient client;

    private ReactiveLockClient(LockClient client) {
        this.client = client;
    }

    /**
     * @param client an open client; closing it ends what this one does (acquisitions under way fail)
     * @return its Reactor face
     * @throws NullPointerException when {@code client} is null
     */
    public static ReactiveLockClient of(LockClient client) {
        return new ReactiveLockClient(Objects.requireNonNull(client, "client"));
    }

    /** @return the client behind this one */
    public LockClient client() {
        return client;
    }

    /**
     * @return the reentrant lock of {@code name} ({@link LockClient#getLock(String)})
     * @throws IllegalArgumentException when {@code name} is not a valid lock name
     */
    public ReactiveLock getLock(String name) {
        return lock(client.getLock(name));
    }

    /** @return the fair lock of {@code name}: granted in the order asked ({@link LockClient#getFairLock(String)}) */
    public ReactiveLock getFairLock(String name) {
        return lock(client.getFairLock(name));
    }

    /**
     * @return the fenced lock of {@code name} ({@link LockClient#getFencedLock(String)}): each hold carries the token
     *         its acquisition drew, {@link ReactiveHold#fencingToken()}
     */
    public ReactiveLock getFencedLock(String name) {
        return new ReactiveLock(client, new LockTarget.Fenced(client.getFencedLock(name)));
    }

    /** @return the read-write lock of {@code name} ({@link LockClient#getReadWriteLock(String)}) */
    public ReactiveReadWriteLock getReadWriteLock(String name) {
        DistributedReadWriteLock lock = client.getReadWriteLock(name);
        return new ReactiveReadWriteLock(lock, keyed(lock.readLock(), lock.getName()),
                keyed(lock.writeLock(), lock.getName()));
    }

    /**
     * A lock over several locks of this client, taken all or none in one global order
     * ({@link LockClient#getMultiLock(Collection)}): its holds are held by one subscription's owner on every member.
     *
     * @param locks locks of this client (plain, fair, fenced, or a side of a read-write lock), not multi-locks
     * @throws NullPointerException     when {@code locks} or one of them is null
     * @throws IllegalArgumentException as {@link LockClient#getMultiLock(Collection)} (no members, a name twice,
     *                                  a lock of another client)
     */
    public ReactiveLock getMultiLock(ReactiveLock... locks) {
        Objects.requireNonNull(locks, "locks");
        List<DistributedLock> members = new ArrayList<>(locks.length);
        for (ReactiveLock lock : locks) {
            members.add(Objects.requireNonNull(lock, "a member lock").core());
        }
        return new ReactiveLock(client, new LockTarget.Multi(client.getMultiLock(members)));
    }

    /** @return the counting semaphore of {@code name} ({@link LockClient#getSemaphore(String)}) */
    public ReactiveSemaphore getSemaphore(String name) {
        return new ReactiveSemaphore(client, client.getSemaphore(name));
    }

    /** @return the semaphore of leased permits of {@code name} ({@link LockClient#getLeasedSemaphore(String)}) */
    public ReactiveLeasedSemaphore getLeasedSemaphore(String name) {
        return new ReactiveLeasedSemaphore(client, client.getLeasedSemaphore(name));
    }

    /** @return the count-down latch of {@code name} ({@link LockClient#getCountDownLatch(String)}) */
    public ReactiveCountDownLatch getCountDownLatch(String name) {
        return new ReactiveCountDownLatch(client, client.getCountDownLatch(name));
    }

    /**
     * A candidate in the leader election {@code name} with the default timing ({@link LockClient#getLeaderElection}).
     * Cheap; sends nothing until {@link ReactiveLeaderElection#whileLeader} is subscribed to.
     *
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public ReactiveLeaderElection getLeaderElection(String name) {
        return getLeaderElection(name, io.dlock.LeaderElectionSettings.defaults());
    }

    /**
     * A candidate in the leader election {@code name} with the given timing
     * ({@link LockClient#getLeaderElection(String, io.dlock.LeaderElectionSettings)}).
     *
     * @throws NullPointerException     when an argument is null
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public ReactiveLeaderElection getLeaderElection(String name, io.dlock.LeaderElectionSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return new ReactiveLeaderElection(client.getLeaderElection(name, settings), settings);
    }

    /**
     * @return emits a read-only snapshot of the lock {@code name} ({@link LockClient#inspect(String)})
     * @throws NullPointerException     when {@code name} is null
     * @throws IllegalArgumentException when {@code name} is blank (not a valid lock name)
     */
    public reactor.core.publisher.Mono<LockInfo> inspect(String name) {
        Checks.name(name);
        return Grants.call(() -> client.inspectAsync(name));
    }

    private ReactiveLock lock(DistributedLock lock) {
        return keyed(lock, lock.getName());
    }

    private ReactiveLock keyed(DistributedLock lock, String inspectName) {
        return new ReactiveLock(client, new LockTarget.Keyed(lock, inspectName));
    }

    @Override
    public String toString() {
        return "ReactiveLockClient[" + client.getId() + "]";
    }
}
