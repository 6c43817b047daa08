package io.dlock.chaos;

import io.dlock.LockKind;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The workloads a run exercises, each on its own lock name, all at once: every worker JVM runs the same number of
 * loops ({@link LockLoop}, one thread each) per workload, so that each lock has contenders in every worker and several
 * in each one (owners of one client that hand the lock to each other). A workload is not a lock kind: the read-write
 * workload takes both sides of one lock ({@link #of(LockKind)} tells the workload of a kind); reports and event
 * sources call it the loop's kind.
 *
 * <p>A loop's event source is {@code w<n>/<label>/t<i>} (worker, workload, thread); the checker also reads the shorter
 * {@code w<n>/<label>} of histories made by hand.
 */
public enum Workload {
    /** {@code client.getLock}: reentrant, not fair. */
    PLAIN("plain", LockKind.PLAIN),
    /** {@code client.getFairLock}: FIFO among waiters (not checked under faults), still mutually exclusive. */
    FAIR("fair", LockKind.FAIR),
    /** {@code client.getReadWriteLock}: each hold takes the read or the write side; readers may share. */
    READ_WRITE("rw", LockKind.READ, LockKind.WRITE),
    /** {@code client.getFencedLock}: every hold gets a token, and writes to the fencing store carry it. */
    FENCED("fenced", LockKind.FENCED),
    /**
     * {@code client.getSemaphore}: {@value #SEMAPHORE_PERMITS} permits, one per hold, no lease (a killed holder's
     * permit never comes back, as with Redisson); at most that many holders at once.
     */
    SEMAPHORE("sem", 3),
    /** {@code client.getLeasedSemaphore}: {@value #SEMAPHORE_PERMITS} permits, each a {@code Permit} with a lease. */
    LEASED("leased", 3),
    /**
     * {@code client.getMultiLock} over two or three plain locks of {@link #MULTI_SPREAD} or of
     * {@link #MULTI_ONE_SLOT}, given in a random order: two holds conflict when they share a member.
     */
    MULTI("multi", 0),
    /**
     * The reactive lock ({@code ReactiveLock.withLock} of dlock-reactor) on {@code chaos:rx}: each hold a
     * subscription of its own (a new owner), cut at random by {@code timeout(1–30 ms)} or {@code dispose()} while it
     * waits or works ({@link ReactiveLoop}). Exclusive; its hold lasts until the work's cancellation has run.
     */
    RX_LOCK("rx", 0),
    /**
     * {@code ReactiveLeasedSemaphore.withPermit} on {@code chaos:rxleased}, {@value #SEMAPHORE_PERMITS} permits, cut
     * at random as {@link #RX_LOCK}'s ({@link ReactiveLoop}).
     */
    RX_LEASED("rxleased", 3),
    /**
     * {@code getMultiLock(a, b)} over {@link #CANCEL_MEMBERS} (two slots), acquired by {@code lockAsync()} cancelled
     * ({@code cancel(false)}) at a random moment, or by a timed {@code tryLock} ({@link CancelLoop}). Nothing a
     * cancelled acquisition was granted may stay held ({@link QuiescenceChecks}).
     */
    MULTI_CANCEL("mcancel", 0),
    /**
     * {@code client.getCountDownLatch}: no holds. Latch rounds ({@link LatchLoop}): every {@value #LATCH_ROUND_MS} ms
     * a fresh latch {@code chaos:latch:<round>} is set to {@value #LATCH_COUNT} by whichever loop comes first, then
     * each loop either counts it down once or awaits it; it must never open without its count-downs.
     */
    LATCH("latch", 0);

    /** A latch round's count: about as many as the loops that count down in one round, so it opens about half the time. */
    public static final int LATCH_COUNT = 3;
    /** One latch round: the set-up phase, then count-downs and awaits. */
    public static final long LATCH_ROUND_MS = 2000;
    /** The first part of a round, in which the latch is set and nothing counts down or awaits. */
    public static final long LATCH_SETUP_MS = 400;
    /** A round's latch lives this long at most (its TTL): far past its round, so no awaiter sees it expire. */
    public static final long LATCH_TTL_MS = 20_000;

    /** The permits of each semaphore workload (the constants above say 3 as well): fewer than the contenders, more than one. */
    public static final int SEMAPHORE_PERMITS = 3;
    /** Plain locks on slots of their own: a multi-lock over some of them takes them one after another. */
    public static final List<String> MULTI_SPREAD = List.of("chaos:multi:a", "chaos:multi:b", "chaos:multi:c",
            "chaos:multi:d");
    /** Plain locks on one slot: a multi-lock over some of them takes them in one script, all or none. */
    public static final List<String> MULTI_ONE_SLOT = List.of("{chaos:multi}:e", "{chaos:multi}:f",
            "{chaos:multi}:g");
    /** The plain locks a multi-lock hold takes some of: of {@link #MULTI_SPREAD} or of {@link #MULTI_ONE_SLOT}. */
    public static final List<String> MULTI_MEMBERS = java.util.stream.Stream.concat(MULTI_SPREAD.stream(),
            MULTI_ONE_SLOT.stream()).toList();

    /** The members of every {@link #MULTI_CANCEL} hold, on two slots (taken one after another). */
    public static final List<String> CANCEL_MEMBERS = List.of("chaos:mcancel:a", "chaos:mcancel:b");

    /** What a writer's hold field adds to its owner's field (dlock-core's {@code ReadWriteSide#writerField}). */
    public static final String WRITER_SUFFIX = ":write";

    private final String label;
    private final Set<LockKind> kinds;
    private final int permits;

    Workload(String label, LockKind first, LockKind... more) {
        this.label = label;
        this.kinds = EnumSet.of(first, more);
        this.permits = 0;
    }

    /** A workload with no lock kind of its own (a semaphore, or a multi-lock of plain locks). */
    Workload(String label, int permits) {
        this.label = label;
        this.kinds = EnumSet.noneOf(LockKind.class);
        this.permits = permits;
    }

    /** @return the semaphore's permits (holds allowed at once), 0 for the lock workloads (one holder, or readers) */
    public int permits() {
        return permits;
    }

    /** @return whether its loops take holds (acquire, critical section, release): every workload but the latch */
    public boolean holds() {
        return this != LATCH;
    }

    /**
     * @return whether its loops cancel their acquisitions and holds at random ({@link ReactiveLoop},
     *         {@link CancelLoop}) instead of checking a validity claim at each step: the nemesis aims at none of its
     *         holds, nothing probes them, and a pause is not judged by what they learn
     */
    public boolean cancels() {
        return this == RX_LOCK || this == RX_LEASED || this == MULTI_CANCEL;
    }

    /** @return whether its holds live as fields of lock hashes ({@link #hashKeys()}), which the nemesis targets */
    public boolean hashHolds() {
        return permits == 0 && holds() && !cancels();
    }

    /** @return the hashes its holds live in: the lock's name, or the multi-lock's members */
    public List<String> hashKeys() {
        return this == MULTI ? MULTI_MEMBERS : this == MULTI_CANCEL ? CANCEL_MEMBERS : List.of(lockName());
    }

    /** @return whether its holds are multi-locks, whose errors name the members ({@code MultiLock[a, b]}) */
    public boolean multiLock() {
        return this == MULTI || this == MULTI_CANCEL;
    }

    /**
     * @return whether a {@link HoldProbe} can look for its holds: one hash field per hold, or for a multi-lock one
     *         field in each of its members' hashes (the hold is present when every member has it)
     */
    public boolean probed() {
        return hashHolds();
    }

    /** @return whether its holds have a lease, which a frozen holder loses (not the plain semaphore's permits) */
    public boolean leased() {
        return this != SEMAPHORE && holds();
    }

    /** @return the latch of round {@code round} ({@link #LATCH} only) */
    public static String latchName(long round) {
        return "chaos:latch:" + round;
    }

    /** @return the workload of a lock event about {@code kind} on {@code name} (multi-lock members by name) */
    public static Workload of(LockKind kind, String name) {
        for (Workload workload : List.of(MULTI, RX_LOCK, MULTI_CANCEL)) {
            if (workload.hashKeys().contains(name)) {
                return workload;
            }
        }
        return of(kind);
    }

    /** @return whether {@code name} is what this workload's objects are called (the lock, a member, the semaphore) */
    public boolean names(String name) {
        return hashKeys().contains(name) || lockName().equals(name)
                || this == LATCH && name.startsWith(lockName() + ":");
    }

    /**
     * @return the keys allowed to outlive a run: the fenced token counter, the semaphores' permit counts, and the
     * leased semaphore's permit table (expired permits of killed holders stay in it until an acquisition reclaims
     * them)
     */
    public List<String> lastingKeys() {
        return this == FENCED ? List.of(tokenKey())
                : this == LEASED || this == RX_LEASED ? List.of(lockName(), "{" + lockName() + "}:timeout")
                : permits > 0 ? List.of(lockName()) : List.of();
    }

    /** @return the workload whose loops take locks of {@code kind} */
    public static Workload of(LockKind kind) {
        for (Workload workload : values()) {
            if (workload.kinds.contains(kind)) {
                return workload;
            }
        }
        throw new IllegalArgumentException("no workload takes " + kind);
    }

    /** @return e.g. {@code rw}: the suffix of a loop's event source ({@code w3/rw}) */
    public String label() {
        return label;
    }

    /** @return the Redis lock name this workload contends for, e.g. {@code chaos:rw} */
    public String lockName() {
        return "chaos:" + label;
    }

    /** @return the fenced lock's token counter (the only key allowed to outlive a run), else null */
    public String tokenKey() {
        return this == FENCED ? "redisson_lock_token:{" + lockName() + "}" : null;
    }

    /**
     * @return the key whose life is the first read hold of the owner with hash field {@code readerField} on the
     * read-write lock: {@code {chaos:rw}:<field>:rwlock_timeout:1} (dlock-core's {@code rwlock_read_acquire.lua})
     */
    public String readTimeoutKey(String readerField) {
        return "{" + lockName() + "}:" + readerField + ":rwlock_timeout:1";
    }

    /** @return the workload of a label, e.g. {@code rw} */
    public static Workload ofLabel(String label) {
        for (Workload kind : values()) {
            if (kind.label.equals(label.toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("no workload " + label);
    }

    /** @return the source of loop {@code thread} of this workload in worker {@code workerId}, e.g. {@code w3/rw/t1} */
    public String source(String workerId, int thread) {
        return workerId + "/" + label + "/t" + thread;
    }

    /** @return the workload of a loop's event source ({@code w3/rw/t1} or {@code w3/rw}), or null for other sources */
    public static Workload ofSource(String source) {
        int slash = source.indexOf('/');
        if (slash < 0) {
            return null;
        }
        int end = source.indexOf('/', slash + 1);
        return ofLabel(end < 0 ? source.substring(slash + 1) : source.substring(slash + 1, end));
    }

    /** @return the worker process of a loop's event source ({@code w3} for {@code w3/rw/t1}), or the source itself */
    public static String processOf(String source) {
        int slash = source.indexOf('/');
        return slash < 0 ? source : source.substring(0, slash);
    }
}
