package io.dlock.it;

import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import io.dlock.it.support.HandOffs;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.LocalQueues;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writers of one client hand the write lock of a read-write lock to each other inside the client in one script call
 * (mode "write" throughout, nothing published), as owners of a plain lock do; a writer that also reads releases
 * through Redis (a downgrade); Redisson readers waiting on the name still get in, and readers and writers never
 * overlap.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = WriteHandoffIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class WriteHandoffIT {
    static final int WATCHDOG_MS = 6000;
    private static final long HOLD_MS = 20;
    /** The readers' patience behind writers ({@code ReadWriteSide.READERS_PATIENCE_NANOS}, documented on the lock). */
    private static final long PATIENCE_MS = 50;

    private String name;
    private RawRedis raw;
    private Workers workers;
    private RedissonClient redisson;
    private final List<Future<?>> tasks = new ArrayList<>();
    private final AtomicInteger writersInside = new AtomicInteger();
    private final AtomicInteger readersInside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:WriteHandoffIT:" + info.getTestMethod().orElseThrow().getName();
        workers = new Workers("write-handoff");
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
            if (redisson != null) {
                redisson.shutdown(0, 5, SECONDS);
            }
        } finally {
            if (raw != null) {
                raw.close();
            }
        }
    }

    private void connect(RedisServer server) {
        raw = RawRedis.connect(server.uri());
    }

    private void write(Lock lock) throws InterruptedException {
        lock.lock();
        try {
            if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                overlaps.incrementAndGet();
            }
            Thread.sleep(HOLD_MS);
            writersInside.decrementAndGet();
        } finally {
            lock.unlock();
        }
    }

    private void read(Lock lock) throws InterruptedException {
        lock.lock();
        try {
            readersInside.incrementAndGet();
            if (writersInside.get() != 0) {
                overlaps.incrementAndGet();
            }
            Thread.sleep(HOLD_MS);
            readersInside.decrementAndGet();
        } finally {
            lock.unlock();
        }
    }

    private void startWriter(LockClient client, int queuedBefore) {
        tasks.add(workers.submit(() -> {
            write(client.getReadWriteLock(name).writeLock());
            return null;
        }));
        LocalQueues.awaitQueued(client, name, queuedBefore + 1);
    }

    private void awaitTasks() {
        for (Future<?> task : tasks) {
            Workers.get(task, Duration.ofSeconds(20));
        }
    }

    @Test
    void writersOfOneClientHandTheWriteLockOverInOneScriptCallEach(RedisServer server, LockClient a) {
        connect(server);
        loadScripts(a);
        AtomicInteger handOffs = HandOffs.countedFor(a);
        Lock holder = a.getReadWriteLock(name).writeLock();
        holder.lock();
        for (int i = 0; i < 3; i++) {
            startWriter(a, i);
        }
        long scriptsBefore = raw.scriptCalls();
        holder.unlock();
        awaitTasks();
        assertThat(raw.scriptCalls() - scriptsBefore).as("script calls from the holder's unlock to the last one's")
                .isEqualTo(4);
        assertThat(handOffs.get()).isEqualTo(3);
        assertThat(overlaps.get()).isZero();
        Leaks.assertClientIdle(a);
        LocalQueues.assertNoCohorts(a);
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }

    @Test
    void aWriterThatAlsoReadsDowngradesInsteadOfHandingOver(RedisServer server, LockClient a) throws Exception {
        connect(server);
        DistributedReadWriteLock rw = a.getReadWriteLock(name);
        Lock write = rw.as(LockOwner.of(7_000_001)).writeLock();
        Lock read = rw.as(LockOwner.of(7_000_001)).readLock();
        write.lock();
        read.lock();
        CompletableFuture<Void> waiting = rw.as(LockOwner.of(7_000_002)).writeLock()
                .lockAsync(LEASE_WATCHDOG, MILLISECONDS);
        LocalQueues.awaitQueued(a, name, 1);

        write.unlock();
        assertThat(raw.hgetall(name)).as("read mode, the owner's read hold only").containsEntry("mode", "read")
                .hasSize(2);
        assertThat(raw.hgetall(name)).as("the waiting writer was not handed the lock")
                .doesNotContainKey(RawRedis.field(a.getId(), 7_000_002) + ":write");
        assertThat(waiting).as("the waiting writer stays out while the read hold lasts").isNotDone();
        read.unlock();
        waiting.get(10, SECONDS);
        rw.as(LockOwner.of(7_000_002)).writeLock().unlock();
        Leaks.assertClientIdle(a);
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }

    @Test
    void redissonReadersWaitingBehindHandOffsGetInAndNeverOverlapAWriter(RedisServer server, LockClient a) {
        connect(server);
        redisson = Redissons.connect(server, WATCHDOG_MS);
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        Lock holder = a.getReadWriteLock(name).writeLock();
        holder.lock();
        startWriter(a, 0);
        startWriter(a, 1);
        for (int i = 0; i < 3; i++) {
            tasks.add(workers.submit(() -> {
                read(theirs.readLock());
                return null;
            }));
        }
        tasks.add(workers.submit(() -> {
            write(theirs.writeLock());
            return null;
        }));
        holder.unlock();
        awaitTasks();
        assertThat(overlaps.get()).as("a reader inside with a writer, or two writers").isZero();
        Leaks.assertClientIdle(a);
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }

    private final List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());

    private void startReader(LockClient client, String label, int queuedBefore) {
        tasks.add(workers.submit(() -> {
            Lock lock = client.getReadWriteLock(name).readLock();
            lock.lock();
            try {
                order.add(label);
                readersInside.incrementAndGet();
                if (writersInside.get() != 0) {
                    overlaps.incrementAndGet();
                }
                Thread.sleep(HOLD_MS);
                readersInside.decrementAndGet();
            } finally {
                lock.unlock();
            }
            return null;
        }));
        LocalQueues.awaitQueued(client, name, queuedBefore + 1);
    }

    /**
     * Runs every script the counted rounds use once (a writer hands over to a writer, then to a reader): a first
     * {@code EVALSHA} of a script the server does not know yet costs a second call ({@code NOSCRIPT}, then
     * {@code EVAL}), which is not what the counts are about.
     */
    private void loadScripts(LockClient a) {
        Lock holder = a.getReadWriteLock(name).writeLock();
        holder.lock();
        startWriter(a, 0);
        holder.unlock();
        awaitTasks();
        holder.lock();
        startReader(a, "warm-up", 0);
        holder.unlock();
        awaitTasks();
        tasks.clear();
        order.clear();
    }

    @Test
    void readersWaitingBehindAWriterOfTheirClientGetTheLockTogetherInItsRelease(RedisServer server, LockClient a) {
        connect(server);
        loadScripts(a);
        AtomicInteger handOffs = HandOffs.countedFor(a);
        Lock holder = a.getReadWriteLock(name).writeLock();
        holder.lock();
        for (int i = 0; i < 4; i++) {
            startReader(a, "r" + i, i);
        }
        long scriptsBefore = raw.scriptCalls();
        holder.unlock();
        awaitTasks();
        assertThat(raw.scriptCalls() - scriptsBefore).as("the writer's release and four read releases")
                .isEqualTo(5);
        assertThat(handOffs.get()).isEqualTo(4);
        assertThat(overlaps.get()).isZero();
        Leaks.assertClientIdle(a);
        LocalQueues.assertNoCohorts(a);
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }

    /**
     * Readers that waited behind the write hold longer than their patience (50 ms) have the next turn (issue 27,
     * failure 10); a writer that queued after them goes next.
     */
    @Test
    void readersWaitingBehindTheWriterGoBeforeAWriterOfTheClientThatQueuedAfterThem(RedisServer server,
                                                                                  LockClient a) throws Exception {
        connect(server);
        Lock holder = a.getReadWriteLock(name).writeLock();
        holder.lock();
        startReader(a, "r0", 0);
        startReader(a, "r1", 1);
        tasks.add(workers.submit(() -> {
            Lock lock = a.getReadWriteLock(name).writeLock();
            lock.lock();
            try {
                order.add("w");
                Thread.sleep(HOLD_MS);
            } finally {
                lock.unlock();
            }
            return null;
        }));
        LocalQueues.awaitQueued(a, name, 3);
        Thread.sleep(PATIENCE_MS + 20); // the readers' patience runs out while the writer holds
        holder.unlock();
        awaitTasks();
        assertThat(order).hasSize(3).endsWith("w");
        assertThat(overlaps.get()).isZero();
        Leaks.assertClientIdle(a);
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }

    /**
     * The releasing client's readers waited behind its write hold, so the turn is theirs although another client's
     * writer waits with its mark; that writer gets in right after them (its mark keeps new readers out).
     */
    @Test
    void readersOfTheReleasingClientGoBeforeAWriterOfAnotherClientThatWaitsWithItsMark(RedisServer server,
                                                                                     LockClient a, LockClient b)
            throws Exception {
        connect(server);
        Lock holder = a.getReadWriteLock(name).writeLock();
        holder.lock();
        startReader(a, "r0", 0);
        startReader(a, "r1", 1);
        CompletableFuture<Void> writerOfB = b.getReadWriteLock(name).as(LockOwner.of(7_000_003)).writeLock()
                .lockAsync(LEASE_WATCHDOG, MILLISECONDS);
        Await.until(Leaks.SETTLE, () -> raw.exists("dlock_rwlock_writers:{" + name + "}"),
                () -> "b's writer should wait with its mark");
        holder.unlock();
        writerOfB.get(10, SECONDS);
        assertThat(order).as("a's readers were in before b's writer").containsExactlyInAnyOrder("r0", "r1");
        assertThat(overlaps.get()).isZero();
        b.getReadWriteLock(name).as(LockOwner.of(7_000_003)).writeLock().unlock();
        awaitTasks();
        Leaks.assertClientIdle(a);
        Leaks.assertClientIdle(b);
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }
}
