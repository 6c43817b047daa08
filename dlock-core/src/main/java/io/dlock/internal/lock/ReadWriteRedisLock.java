package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.internal.LockNames;

import java.util.Objects;

/**
 * The read-write lock, wire-compatible with Redisson's {@code RReadWriteLock}: Redisson 4.7 readers and dlock readers
 * share one lock, a writer of either excludes readers and writers of both, and each one's release wakes the other's
 * waiters.
 *
 * <h2>Key layout (docs/protocol.md §4.1)</h2>
 * <ul>
 *   <li>{@code NAME}: a hash. Field {@code mode} = {@code read} or {@code write}; one field per reader,
 *       {@code <client id>:<owner id>} → its read hold count; at most one writer field,
 *       {@code <client id>:<owner id>:write} → its write hold count. The writer's own reader field may sit beside it
 *       (a writer that also reads).</li>
 *   <li>Per read hold {@code n} (1..count) of a reader: {@code {NAME}:<reader field>:rwlock_timeout:<n>} (or
 *       {@code NAME:…} when NAME has its own hash tag), a string {@code 1} whose TTL is that hold's lease. These keys
 *       are what a read hold really is: a hold whose key expired no longer counts.</li>
 *   <li>{@code redisson_rwlock:{NAME}}: the channel of readers and writers of both libraries.</li>
 *   <li>{@code dlock_rwlock_writers:{NAME}}: dlock only, never read by Redisson: a sorted set of waiting marks
 *       (deadline in Redis server time, ms): dlock writers (writer field) and dlock readers refused by a write hold
 *       (reader field). See turns.</li>
 * </ul>
 *
 * <h2>TTL rule</h2>
 * The hash lives as long as its longest live hold. A read acquisition raises the hash's TTL to its lease if that is
 * longer; a read release, and each watchdog round of read holds, set it to the longest PTTL over the timeout keys of
 * every reader (dlock's and Redisson's), and delete the hash when none is live. So a crashed reader (dlock or Redisson
 * 4.4+) stops counting when its own keys expire, and no longer blocks writers. The write hold sets the TTL to its lease
 * on acquisition and on re-entry (reset, not added to, unlike Redisson), and on a partial release to the lease of the
 * remaining innermost acquisition, never below one of the writer's own read holds. The read watchdog
 * ({@link ReadHoldRenewal}) extends only this client's timeout keys, to at least the watchdog timeout, never shorter;
 * the write hold is renewed like a plain lock's field ({@link HashFieldRenewal}).
 *
 * <h2>Messages on {@code redisson_rwlock:{NAME}}</h2>
 * <ul>
 *   <li>{@code 0}: the last live read hold was released (hash deleted). Redisson wakes one waiter per client.</li>
 *   <li>{@code 1}: a write lock was released (hash deleted, or downgraded to the writer's read holds), or the lock was
 *       force-unlocked. Redisson wakes all its waiters.</li>
 *   <li>{@code 0} also when a dlock writer (reader) gives up waiting and was the last live waiting writer (marked
 *       reader) while nobody writes, so that readers (writers) held back only by those marks enter at once (an extra
 *       {@code 0} costs a Redisson waiter one retry).</li>
 * </ul>
 * In a dlock client every message on this channel wakes all its waiters of the lock, readers and writers: with two
 * kinds of waiters, waking just one could wake a reader that still has to wait while a writer could enter.
 *
 * <h2>Turns: phase-fair (among dlock clients; Lua fragment {@code lib/waiting_marks.lua})</h2>
 * Rules: <em>the readers' turn</em> — while a dlock reader refused by another owner's write hold waits, no dlock writer
 * is granted a free lock and no writer hands the write lock to another writer, so the next write release lets the
 * readers in (any dlock reader may then enter while the lock is not write-held, whatever writers wait); otherwise
 * <em>the writers' turn</em> — a dlock read acquisition that is not a re-entry waits while some dlock writer is waiting
 * for the same lock. (Until issue 27 only the second rule existed, and readers behind writers that took the lock back
 * to back never got in.) A waiting writer (any acquisition allowed to wait; not {@code tryLock()}) records a mark with
 * a deadline of two thirds of the watchdog timeout in {@code dlock_rwlock_writers:{NAME}} on every failed attempt; a
 * waiting reader does so on every attempt refused by a write hold (one held back only by writer marks leaves none:
 * readers arriving while others read must not take every turn). A marked waiter attempts at least every third of the
 * watchdog timeout, which refreshes the mark. The mark is removed when its owner acquires (attempt or hand-off), or
 * when it stops waiting (timeout, interrupt, cancellation: {@code rwlock_withdraw_mark}), and expires by itself if its
 * client dies, so a crashed waiter holds the other side back for at most two thirds of the watchdog timeout. Exempt
 * from the writers' turn: a reader that already holds a read hold (re-entry; the writer is waiting for it) and the
 * write holder taking read holds. Inside one client the same rule picks the hand-off: readers waiting behind a local
 * writer get the lock before the client's waiting writers ({@link LocalLine.Pick}). Redisson readers and writers ignore
 * the marks (their wire view is unchanged), so the turns hold among dlock clients only. As with every lock that lets
 * waiting writers go first, a thread that holds a read hold and waits for another thread's new read hold can deadlock
 * with a waiting writer.
 *
 * <h2>Upgrade and downgrade</h2>
 * <ul>
 *   <li>Upgrade (read → write) is refused: an owner that holds live read holds and no write hold gets
 *       {@link IllegalMonitorStateException} at once from every acquiring method of the write side ({@code tryLock()}
 *       included; async ones fail their future). The acquire script detects it, so it holds for holds taken through
 *       any lock object of this client; the read holds are left as they were. (Redisson waits forever.)</li>
 *   <li>Downgrade (write → read): the write holder may take read holds; when it releases its last write hold while it
 *       still has live read holds, the mode becomes {@code read}, the TTL the longest of those holds, and {@code 1} is
 *       published so that waiting readers of both libraries enter at once (Redisson publishes nothing there, so its
 *       waiters sleep until the TTL runs out).</li>
 * </ul>
 *
 * <h2>Views</h2>
 * {@code isLocked()}: write side when the mode is {@code write}; read side when the mode is {@code read} or the
 * writer also reads (Redisson's rule). {@code remainTimeToLive()}: the hash's PTTL, or {@code TTL_NOT_LOCKED} while
 * only the other side is held. {@code getHoldCount()}/{@code isHeldByThread}: the owner's count in its reader or writer
 * field. {@code forceUnlock()} acts only on a lock held in its own side's mode, as Redisson's does: then it deletes
 * the hash and every reader's timeout keys and publishes {@code 1} (every waiter wakes); waiting-writer marks stay, the
 * writers still go first. On a lock held in the other mode it changes nothing and returns false (the write side leaves
 * readers alone, the read side leaves a writer alone, the writer's own read holds included).
 *
 * <p>Thread-safe and immutable; the two sides are created once per instance (for {@link #as}: views of the sides).
 */
final class ReadWriteRedisLock implements DistributedReadWriteLock {
    private final String name;
    private final DistributedLock readLock;
    private final DistributedLock writeLock;

    ReadWriteRedisLock(LockServices services, String name) {
        this.name = LockNames.requireValid(name);
        ReadWriteKeys keys = ReadWriteKeys.of(name);
        this.readLock = OwnerView.ofCallingThread(new RedisLock(
                new ReadProtocol(new LockContext(services, name, LockKind.READ), keys)));
        this.writeLock = OwnerView.ofCallingThread(new RedisLock(
                new WriteProtocol(new LockContext(services, name, LockKind.WRITE), keys)));
    }

    /** The lock of {@code owner}: both sides are views of {@code of}'s sides acting for it. */
    private ReadWriteRedisLock(ReadWriteRedisLock of, LockOwner owner) {
        this.name = of.name;
        this.readLock = of.readLock.as(owner);
        this.writeLock = of.writeLock.as(owner);
    }

    @Override
    public DistributedReadWriteLock as(LockOwner owner) {
        return new ReadWriteRedisLock(this, Objects.requireNonNull(owner, "owner"));
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return readLock;
    }

    @Override
    public DistributedLock writeLock() {
        return writeLock;
    }

    @Override
    public String toString() {
        return "ReadWriteRedisLock{" + name + "}";
    }
}
