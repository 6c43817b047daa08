package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Violations whose cause is a known, reported dlock defect: recognised by their exact signature and listed in the
 * report on their own, so that a regression is named. They fail a run like any violation unless the run is lenient
 * ({@code -Dchaos.strict=false}), which is meant only for the time between reporting a defect and merging its fix.
 * The first three are fixed on main (their reproductions pass strict runs); they stay listed so a regression is
 * named. The last two (issue 27) are open while their fixes are made.
 */
enum KnownDefect {
    /**
     * Read-write lock: a read acquisition whose reply was lost (it timed out, the script ran later) leaves the owner
     * recorded as a reader, so its next write acquisitions throw the upgrade {@code IllegalMonitorStateException}
     * although the caller never got a read hold (issue 13, point 4, for the read-write lock).
     */
    ORPHAN_READ_HOLD_AFTER_LOST_REPLY(Invariant.REDIS_FAILURES_SURFACE, v -> v.contains("IllegalMonitorStateException")
            && v.contains("holds the read lock but not the write lock")),
    /**
     * A release that failed without running leaves the owner's field in Redis; the client forgets the hold, so the
     * same owner's next acquisition re-enters that field (Redis counts 2, the client 1) and every later unlock leaves
     * one hold behind with a fresh lease: while the owner keeps taking the lock, its hold never ends in Redis and
     * others starve (the fair lock's FIFO included).
     */
    REENTERED_AFTER_FAILED_RELEASE(Invariant.FAILED_RELEASE_ENDS, v -> v.contains("still held")
            && mostHoldsSeen(v) >= 2), // workers never re-enter: two holds of one field are one too many
    /**
     * Multi-lock: an acquisition took a member, then Redis stayed silent past that member's lease (its renewals
     * could not run) and the acquisition gave up; giving the member back finds it expired, and the acquisition throws
     * that {@code IllegalMonitorStateException} — from {@code tryLock}, where {@code MultiLock}'s contract promises a
     * {@code LockException} with the failed release attached (issue 22, found by this suite; fixed: a member whose
     * hold is gone has nothing to give back, and the acquisition's own outcome stands).
     */
    MULTI_ROLLBACK_OF_EXPIRED_MEMBER_THROWS_IMSE(Invariant.REDIS_FAILURES_SURFACE, v -> v.contains("/multi/")
            && v.contains("ACQUIRE_ERROR is not a LockException: java.lang.IllegalMonitorStateException")
            && v.contains("giving back the members taken failed")),
    /**
     * Latch: Redis restarts (without its data) under an awaiter, and the await answers {@code true} for the latch
     * the restart lost, without its count-downs (issue 27 #6; open: the latch fix makes the await fail instead).
     */
    LATCH_OPENED_BY_DATA_LOSS(Invariant.LATCH_OPENS_BY_COUNT_DOWNS,
            v -> v.contains("the client answered true for a latch it lost")),
    /**
     * Semaphores: an acquisition re-sent after each command timeout keeps a permit for every attempt Redis runs late,
     * and {@code close()} during a stall leaves one taken (issue 27 #1, #2; open: the lost-reply rule for every
     * script that takes something).
     */
    SEMAPHORE_PERMITS_LOST(Invariant.PERMITS_CONSERVED, v -> v.endsWith("permits lost"));

    private static final Pattern MOST_SEEN = Pattern.compile("at most (\\d+) seen");

    private final Invariant invariant;
    private final Predicate<String> signature;

    KnownDefect(Invariant invariant, Predicate<String> signature) {
        this.invariant = invariant;
        this.signature = signature;
    }

    /** @return the most holds of one field the nemesis saw, as its RELEASE_NOT_FREED detail says; 0 if unsaid */
    private static long mostHoldsSeen(String violation) {
        Matcher m = MOST_SEEN.matcher(violation);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** @return the known defect a violation's text shows, or null */
    static KnownDefect of(Invariant inv, String violation) {
        for (KnownDefect d : values()) {
            if (d.invariant != inv) {
                continue;
            }
            if (d.signature.test(violation)) {
                return d;
            }
        }
        return null;
    }
}
