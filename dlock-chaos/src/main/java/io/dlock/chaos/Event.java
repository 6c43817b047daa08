package io.dlock.chaos;

import java.util.Optional;

/**
 * One line of a run's history: what happened, where, and when on the host's monotonic clock.
 *
 * <p>Timestamps are {@link System#nanoTime()} values. On Linux every JVM reads them from {@code CLOCK_MONOTONIC},
 * so events of the worker JVMs, the nemesis and the store are on one time line (the run checks this at start-up).
 *
 * @param nanos  when, on the host's monotonic clock
 * @param source who: {@code w3} (worker 3), {@code nemesis}, {@code store}
 * @param type   what
 * @param token  the fencing token concerned, or {@link #NO_TOKEN}
 * @param detail free text (no tabs or line breaks)
 */
public record Event(long nanos, String source, Type type, long token, String detail) {
    public static final long NO_TOKEN = -1L;

    /** What an event says. */
    public enum Type {
        // ---- a worker ----
        /**
         * Started. A worker JVM ({@code w3}): detail its client id, the prefix of its hold fields. A lock loop
         * ({@code w3/rw}): detail {@code <client id>:<owner id>}, its hold field.
         */
        HELLO,
        /**
         * About to ask for the lock; detail: how (try, wait, lease), and for the read-write lock the side. A latch
         * loop's calls use the same four types: {@code countdown name=<latch>} (ACQUIRED when it returned) or
         * {@code await name=<latch> waitMs=<ms>} (ACQUIRED: it answered true, ACQUIRE_TIMEOUT: false).
         */
        ACQUIRE_START,
        /**
         * Holds the lock with {@code token} (recorded when the call returned); detail: how, side, {@code unchecked}
         * for a careless hold, and the validity check made right after ({@code checkedAt=… validMs=…}).
         */
        ACQUIRED,
        /**
         * About to set a semaphore's permits ({@code trySetPermits}) or a latch's count ({@code trySetCount}), which
         * only an absent key takes; detail: {@code set-permits count=<n>} or {@code set-count name=<latch> count=<n>}.
         */
        SETUP_START,
        /** The set-up answered; detail: {@code true} (it set the key) or {@code false} (the key existed). */
        SETUP,
        /** The set-up failed; detail: exception class and message. */
        SETUP_ERROR,
        /** Did not get the lock within its wait. */
        ACQUIRE_TIMEOUT,
        /** The acquisition failed; detail: exception class and message. */
        ACQUIRE_ERROR,
        /** {@code leaseValidFor()} was too short to write; detail: what it said (ms). */
        NOT_VALID,
        /** Sending a write with {@code token} to the store (after the validity check passed). */
        WRITE_START,
        /** The store accepted the write. */
        WRITE_OK,
        /** The store rejected the write as stale; detail: the highest token it had accepted. */
        WRITE_REJECTED,
        /** The store did not answer. */
        WRITE_ERROR,
        /** A step of a critical section of a lock without a fencing store; detail: its validity check. */
        STEP,
        /**
         * Inside a hold (right after ACQUIRED, after each step), the loop looked in Redis itself, past the client
         * ({@link HoldProbe}); detail: {@code held|absent|unknown field=<hold field> sentAt=<ns>} and, for absent,
         * what was missing, for unknown, the error. Redis answered between {@code sentAt} and this event.
         */
        PROBE,
        /** The client's LeaseLostListener fired; detail: reason; token: the hold the worker was in, if any. */
        LEASE_LOST,
        /** Leaves the critical section with {@code token}, about to unlock. */
        EXIT,
        /** unlock() succeeded. */
        UNLOCKED,
        /** unlock() said the hold was gone (IllegalMonitorStateException): the lease had been lost. */
        UNLOCK_NOT_HELD,
        /** unlock() failed (Redis failed); not retried; detail: exception class and message. */
        UNLOCK_ERROR,
        /** Stopped cleanly. */
        BYE,
        /**
         * An election loop ({@code w3-election}, {@link ElectionLoop}) was told it leads, in the term of epoch
         * {@code token} (recorded by its {@code elected} listener).
         */
        ELECTED,
        /**
         * An election loop was told its term of epoch {@code token} ended (its {@code revoked} listener, which runs
         * after the term became invalid); detail: the cause.
         */
        REVOKED,
        /**
         * A worker JVM ({@code w3}) once all its loops stopped, before it closes its client: what the client still
         * counts as held of the workloads that cancel ({@link Workload#cancels()}); detail {@code held=0}, or
         * {@code held=<n> <what>; <what>...} (a hold: {@code <name> owner=<id> count=<n> watchdog=<bool>}; a permit:
         * {@code <semaphore> permit <id>}). Every loop gave back what it knew it held, so each is a grant of a
         * cancelled acquisition ({@link QuiescenceChecks}).
         */
        QUIESCENT,
        // ---- the nemesis ----
        /** A fault begins; detail: kind and target. */
        FAULT_START,
        /** A fault ended (process resumed, Redis back, …); detail: kind. */
        FAULT_END,
        /** Redis cannot answer from now on (killed, stopped, paused, sleeping); detail: kind. */
        REDIS_DOWN,
        /** Redis may answer again from now on; detail: kind. */
        REDIS_UP,
        /** A killed holder's lock was freed; detail: {@code <victim> <ms after the kill>}. */
        FREED,
        /** A killed holder's lock was not freed within the bound; detail: victim. */
        NOT_FREED,
        /** release-drop: the workers' connections were cut while releases were held back; detail: counts. */
        CONNECTIONS_KILLED,
        /** release-drop: a hold present when the connections were cut is gone; detail: {@code <loop> <ms after>}. */
        RELEASE_FREED,
        /** release-drop: a hold present when the connections were cut was never seen gone; detail: what. */
        RELEASE_NOT_FREED,
        /** A worker did not stop within its timeout and was killed; detail: worker. */
        HUNG,
        /** Something left behind after the run; detail: what. */
        LEFTOVER,
        /** A worker process exited; detail: {@code <worker> <exit code>}. */
        EXITED,
        /**
         * At quiescence (every worker stopped, every lease over), what a semaphore's keys hold; detail:
         * {@code kind=sem count=<n>} or {@code kind=leased count=<n> table=<permits in the table> live=<unexpired>}.
         */
        PERMITS_STATE,
        /** Information (skipped fault, set-up); detail: text. */
        NOTE,
        // ---- the store ----
        /** The store accepted a write; detail: writer. */
        STORE_ACCEPTED,
        /** The store rejected a write as stale; detail: {@code <writer> <highest accepted>}. */
        STORE_REJECTED,
        /**
         * The store's election register accepted a write of epoch {@code token}; detail:
         * {@code <writer> guardAt=<ns>}, when the writer's guard ({@code requireValid()}) began.
         */
        REGISTER_ACCEPTED,
        /**
         * The store's election register rejected a write of epoch {@code token} as stale; detail:
         * {@code <writer> guardAt=<ns> highest=<highest accepted>}.
         */
        REGISTER_REJECTED
    }

    public Event {
        detail = detail == null ? "" : detail.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }

    /** Last field of every line: a line without it was torn (its writer was killed while writing it). */
    private static final String END = "$";

    /** The tab-separated line written to a log file (without line break). */
    public String toLine() {
        return nanos + "\t" + source + "\t" + type + "\t" + token + "\t" + detail + "\t" + END;
    }

    /** @return the event of a line written by {@link #toLine()}, or empty for a torn or foreign line */
    public static Optional<Event> parse(String line) {
        String[] parts = line.split("\t", -1);
        if (parts.length != 6 || !parts[5].equals(END)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Event(Long.parseLong(parts[0]), parts[1], Type.valueOf(parts[2]),
                    Long.parseLong(parts[3]), parts[4]));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    public boolean hasToken() {
        return token != NO_TOKEN;
    }
}
