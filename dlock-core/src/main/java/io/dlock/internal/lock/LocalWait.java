package io.dlock.internal.lock;

/**
 * How a kind's owners wait behind another owner of their client inside the client ({@link LocalCohort}), described by
 * the kind ({@link LockProtocol#localWait}) and set up by {@link RedisLock}.
 *
 * @param shared            the owner waits for a shared hold (a reader)
 * @param refreshNanos      the longest the owner waits locally before it asks Redis again, even behind a live local
 *                          holder ({@code Long.MAX_VALUE}: no limit)
 * @param afterPlaceInRedis the owner may wait locally only while it has its waiting mark (its place in the Redis
 *                          queue, taken by an attempt: the fair lock)
 */
record LocalWait(boolean shared, long refreshNanos, boolean afterPlaceInRedis) {
    /** An exclusive owner that waits locally as long as the local holder lives. */
    static final LocalWait EXCLUSIVE = new LocalWait(false, Long.MAX_VALUE, false);
}
