package io.dlock;

/**
 * The kinds of {@link DistributedLock} a {@link LockClient} hands out; {@link LockClient#getLock(LockKind, String)}
 * makes a lock of any of them. Holds ({@link HeldLock}), lock events and metrics
 * ({@code io.dlock.metrics.LockMetrics}) name the kind with these constants.
 *
 * <p>Plain, fair and fenced locks of one name use the same Redis hash and fields, so they share holds: a hold's kind
 * is that of the lock whose acquisition began it.
 */
public enum LockKind {
    /**
     * {@link LockClient#getLock(String)}: reentrant, not fair; Redisson's {@code RLock} ({@code getLock}).
     */
    PLAIN("plain"),
    /** {@link LockClient#getFairLock(String)}: reentrant, granted in FIFO order; Redisson's {@code getFairLock}. */
    FAIR("fair"),
    /** The shared side of {@link LockClient#getReadWriteLock(String)}: Redisson's {@code readLock()}. */
    READ("read"),
    /** The exclusive side of {@link LockClient#getReadWriteLock(String)}: Redisson's {@code writeLock()}. */
    WRITE("write"),
    /** {@link LockClient#getFencedLock(String)}: the plain lock with fencing tokens; Redisson's {@code RFencedLock}. */
    FENCED("fenced");

    private final String tagValue;

    LockKind(String tagValue) {
        this.tagValue = tagValue;
    }

    /**
     * The kind's name in lower case ({@code plain}, {@code fair}, {@code read}, {@code write}, {@code fenced}): the
     * value of the {@code kind} tag of dlock's meters. Stable across releases (dashboards and alerts rely on it).
     *
     * @return the tag value; never null
     */
    public String tagValue() {
        return tagValue;
    }
}
