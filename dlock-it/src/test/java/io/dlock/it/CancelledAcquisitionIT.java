package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.MultiLock;
import io.dlock.Permit;
import io.dlock.it.support.HeldHandOvers;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.it.support.Subscribers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 43 #2, for every kind (each lock kind, the multi-lock on two slots and on one, both semaphores): an
 * acquisition whose caller cancels its future as the grant arrives leaves nothing held. Client two holds the object,
 * client one's async acquisition waits for it (every other round with a wait limit, the deadline rule's path), client
 * two lets go, and client one cancels ({@code cancel(false)}) at one of two moments:
 * <ul>
 *   <li>{@link Moment#GRANTED_NOT_HANDED_OVER}: the grant has completed the acquisition inside client one, and its
 *       hand-over to the caller's future waits in client one's executor ({@link HeldHandOvers}): every round crosses
 *       the grant;</li>
 *   <li>{@link Moment#SWEPT}: at a delay after client two's release was sent, swept over the span in which the grant
 *       travels (before it, across it, after it), with the client's own executor free.</li>
 * </ul>
 * Once the cancel has settled, Redis must show nothing held (the lock keys gone, the fair queue empty, the permit
 * count back at 1 and the permit table empty) and client one must hold nothing ({@code heldLocks()}, leased permits):
 * waited for with a bounded poll, a round failing when the state is not reached in time. A cancel that lost the race
 * (the caller's future completed first) leaves the hold with the caller, who gives it back; such rounds are counted
 * apart. Rounds: 200 per kind and moment ({@code -Dcancel.rounds}; {@code -Dcancel.kinds=MULTI,FAIR} runs only the
 * kinds named so); after {@value #MAX_FAILURES} failed rounds the kind stops (each failed round waits out the bound).
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 600, unit = SECONDS)
class CancelledAcquisitionIT {
    static final int ROUNDS = Integer.getInteger("cancel.rounds", 200);
    static final int MAX_FAILURES = 10;
    /** How long the give-back of a cancelled acquisition may take on a loaded machine: a few round trips. */
    static final Duration QUIET_WITHIN = Duration.ofSeconds(2);
    /** The swept cancel's delays after the release was sent: 0 to 3 ms in steps of 150 us (a grant's journey). */
    static final long SWEEP_STEP_NANOS = 150_000;
    static final int SWEEP_STEPS = 21;
    /** The wait of the timed acquisitions (every other round): far longer than a round. */
    static final Duration TIMED_WAIT = Duration.ofSeconds(30);

    enum Moment { GRANTED_NOT_HANDED_OVER, SWEPT }

    enum Kind { PLAIN, FAIR, READ, WRITE, FENCED, MULTI_TWO_SLOTS, MULTI_ONE_SLOT, SEMAPHORE, LEASED_SEMAPHORE }

    RawRedis raw;
    HeldHandOvers handOvers;
    LockClient one;

    static Stream<Arguments> cases() {
        String only = System.getProperty("cancel.kinds", "");
        return Arrays.stream(Kind.values())
                .filter(kind -> only.isEmpty() || Arrays.stream(only.split(",")).anyMatch(kind.name()::startsWith))
                .flatMap(kind -> Arrays.stream(Moment.values()).map(moment -> Arguments.of(kind, moment)));
    }

    @BeforeEach
    void setUp(RedisTopology topology) {
        raw = RawRedis.connect(topology.uri());
        handOvers = new HeldHandOvers();
        one = LockClient.create(LockClientConfig.builder().redisUri(topology.uri()).executor(handOvers).build());
    }

    @AfterEach
    void tearDown() {
        try {
            one.close();
            handOvers.close();
        } finally {
            raw.close();
        }
    }

    @ParameterizedTest(name = "{0}, cancelled {1}")
    @MethodSource("cases")
    void aCancelledAcquisitionLeavesNothingHeld(Kind kind, Moment moment, LockClient two) throws Exception {
        Subject subject = subject(kind, "it:CancelledAcquisitionIT:" + kind + ":" + moment, two);
        List<String> failures = new ArrayList<>();
        int rounds = 0;
        int crossed = 0;
        int lostTheRace = 0;
        while (rounds < ROUNDS && failures.size() < MAX_FAILURES) {
            rounds++;
            int round = rounds;
            subject.block();
            boolean timed = rounds % 2 == 0;
            CompletableFuture<?> acquisition = subject.start(timed);
            Await.until(Subscribers.SETTLE, () -> acquisition.isDone() || Leaks.diagnostics(one).waiters() >= 1
                    && Subscribers.count(raw, subject.awaited()) >= 1, () -> "round " + round + ": client one waits"
                    + " for " + subject.awaited() + " (" + Leaks.diagnostics(one) + ", subscribers "
                    + Subscribers.count(raw, subject.awaited()) + ", " + subject.state() + ")");
            assertThat(acquisition).as("waiting while client two holds it").isNotDone();
            boolean cancelled;
            if (moment == Moment.GRANTED_NOT_HANDED_OVER) {
                handOvers.hold();
                try {
                    subject.unblock();
                    assertThat(handOvers.awaitHeld(Duration.ofSeconds(10)))
                            .as("the grant reaches client one, whose hand-over waits").isTrue();
                    cancelled = acquisition.cancel(false);
                } finally {
                    handOvers.release();
                }
                crossed++;
            } else {
                CompletableFuture<?> released = subject.unblockAsync();
                long delay = (rounds % SWEEP_STEPS) * SWEEP_STEP_NANOS;
                long until = System.nanoTime() + delay;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
                cancelled = acquisition.cancel(false);
                released.get(10, SECONDS);
            }
            if (!cancelled) {
                lostTheRace++;
                Object outcome = acquisition.get(10, SECONDS);
                if (!Boolean.FALSE.equals(outcome) && !Optional.empty().equals(outcome)) {
                    subject.giveBack(outcome);
                }
            }
            if (!quietWithin(subject)) {
                failures.add("round " + rounds + (timed ? " timed" : "") + " (cancel " + (cancelled ? "won" : "lost")
                        + "): " + subject.state()
                        + ", client one holds " + one.heldLocks() + ", leased permits "
                        + SemaphoreProbe.heldPermits(one));
                subject.reset();
            }
        }
        System.out.printf("%s, %s: %d of %d rounds left something held (%d crossed a grant held in the hand-over, "
                + "%d cancels lost the race)%n", kind, moment, failures.size(), rounds, crossed, lostTheRace);
        assertThat(failures).as("%s, cancelled %s: rounds of %d that left something held", kind, moment, rounds)
                .isEmpty();
    }

    /** Polls Redis and client one until nothing is held, for at most {@link #QUIET_WITHIN}. */
    private boolean quietWithin(Subject subject) throws InterruptedException {
        long end = System.nanoTime() + QUIET_WITHIN.toNanos();
        BooleanSupplier quiet = () -> subject.quiet() && one.heldLocks().isEmpty()
                && SemaphoreProbe.heldPermits(one) == 0;
        while (!quiet.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        return true;
    }

    /** One kind's object, held by client two and acquired by client one. */
    interface Subject {
        /** Client two takes it (so client one's acquisition waits). */
        void block() throws Exception;

        /** Client two lets go, and waits for Redis's answer. */
        default void unblock() throws Exception {
            unblockAsync().get(10, SECONDS);
        }

        /** Client two lets go: the release sent. */
        CompletableFuture<?> unblockAsync();

        /**
         * Client one's async acquisition, from the test's thread: without a wait limit, or {@code timed} with a wait
         * of {@link #TIMED_WAIT} (the path of the deadline rule).
         */
        CompletableFuture<?> start(boolean timed);

        /** The name whose channel client one waits on. */
        String awaited();

        /** Client one gives back what a completed acquisition gave it (its cancel lost the race). */
        void giveBack(Object acquired);

        /** Whether Redis shows nothing held, with client two's hold gone too. */
        boolean quiet();

        /** What Redis holds, for the failure message. */
        String state();

        /** Clears what a failed round left, so the next round starts free. */
        void reset();
    }

    private Subject subject(Kind kind, String base, LockClient two) {
        return switch (kind) {
            case PLAIN -> new LockSubject(base, one.getLock(base), two.getLock(base));
            case FAIR -> new LockSubject(base, one.getFairLock(base), two.getFairLock(base)) {
                @Override
                public boolean quiet() {
                    return super.quiet() && !raw.exists(RawRedis.fairQueue(base));
                }
            };
            // a reader waits for client two's writer; so does a writer
            case READ -> readWrite(base, one.getReadWriteLock(base).readLock(), two);
            case WRITE -> readWrite(base, one.getReadWriteLock(base).writeLock(), two);
            case FENCED -> new LockSubject(base, one.getFencedLock(base), two.getFencedLock(base));
            case MULTI_TWO_SLOTS -> multi(base + ":a", base + ":b", two);
            case MULTI_ONE_SLOT -> multi("{" + base + "}:a", "{" + base + "}:b", two);
            case SEMAPHORE -> semaphore(base, two);
            case LEASED_SEMAPHORE -> leased(base, two);
        };
    }

    /** A lock: free again at quiescence (client two released it, client one's cancel gave back what it got). */
    class LockSubject implements Subject {
        final String name;
        final DistributedLock mine;
        final DistributedLock theirs;

        LockSubject(String name, DistributedLock mine, DistributedLock theirs) {
            this.name = name;
            this.mine = mine;
            this.theirs = theirs;
        }

        @Override
        public void block() {
            theirs.lock();
        }

        @Override
        public CompletableFuture<?> unblockAsync() {
            return theirs.unlockAsync();
        }

        @Override
        public CompletableFuture<?> start(boolean timed) {
            return timed ? mine.tryLockAsync(TIMED_WAIT.toMillis(), TimeUnit.MILLISECONDS) : mine.lockAsync();
        }

        @Override
        public String awaited() {
            return name;
        }

        @Override
        public void giveBack(Object acquired) {
            mine.unlock();
        }

        @Override
        public boolean quiet() {
            return !raw.exists(name);
        }

        @Override
        public String state() {
            return name + " " + raw.hgetall(name) + " (pttl " + raw.pttl(name) + ")";
        }

        /** Client one gives back what it was left holding; what client two holds goes by force. */
        @Override
        public void reset() {
            if (!one.heldLocks().isEmpty()) {
                giveBack(null);
            }
            theirs.forceUnlock();
        }
    }

    /** A side of a read-write lock that client two's writer holds: no key of the lock is left at quiescence. */
    private Subject readWrite(String name, DistributedLock mine, LockClient two) {
        return new LockSubject(name, mine, two.getReadWriteLock(name).writeLock()) {
            @Override
            public boolean quiet() {
                return raw.keys().stream().noneMatch(key -> key.contains(name));
            }

            @Override
            public String state() {
                return super.state() + ", keys " + raw.keys().stream().filter(key -> key.contains(name)).toList();
            }
        };
    }

    /** A multi-lock of {@code a} and {@code b}: client two holds {@code b}, so client one takes {@code a} and waits. */
    private Subject multi(String a, String b, LockClient two) {
        assertThat(SlotHash.getSlot(a) == SlotHash.getSlot(b)).as("one slot").isEqualTo(a.startsWith("{"));
        MultiLock multi = one.getMultiLock(one.getLock(a), one.getLock(b));
        return new LockSubject(b, null, two.getLock(b)) {
            @Override
            public CompletableFuture<?> start(boolean timed) {
                return timed ? multi.tryLockAsync(TIMED_WAIT.toMillis(), DistributedLock.LEASE_WATCHDOG,
                        TimeUnit.MILLISECONDS) : multi.lockAsync();
            }

            @Override
            public void giveBack(Object acquired) {
                multi.unlock();
            }

            @Override
            public boolean quiet() {
                return !raw.exists(a) && !raw.exists(b);
            }

            @Override
            public String state() {
                return a + " " + raw.hgetall(a) + " (pttl " + raw.pttl(a) + "), " + super.state();
            }

        };
    }

    /** A one-permit semaphore: its count is back at 1 at quiescence. */
    private Subject semaphore(String name, LockClient two) {
        DistributedSemaphore mine = one.getSemaphore(name);
        DistributedSemaphore theirs = two.getSemaphore(name);
        theirs.trySetPermits(1);
        return new Subject() {
            @Override
            public void block() throws Exception {
                theirs.acquire();
            }

            @Override
            public CompletableFuture<?> unblockAsync() {
                return theirs.releaseAsync();
            }

            @Override
            public CompletableFuture<?> start(boolean timed) {
                return timed ? mine.tryAcquireAsync(1, TIMED_WAIT) : mine.acquireAsync();
            }

            @Override
            public String awaited() {
                return name;
            }

            @Override
            public void giveBack(Object acquired) {
                mine.release();
            }

            @Override
            public boolean quiet() {
                return "1".equals(raw.sync().get(name));
            }

            @Override
            public String state() {
                return name + " = " + raw.sync().get(name);
            }

            @Override
            public void reset() {
                theirs.setPermits(1);
            }
        };
    }

    /** A one-permit leased semaphore: its count is back at 1 and its permit table empty at quiescence. */
    private Subject leased(String name, LockClient two) {
        String table = "{" + name + "}:timeout";
        LeasedSemaphore mine = one.getLeasedSemaphore(name);
        LeasedSemaphore theirs = two.getLeasedSemaphore(name);
        theirs.trySetPermits(1);
        Permit[] blocking = new Permit[1];
        return new Subject() {
            @Override
            public void block() throws Exception {
                blocking[0] = theirs.acquire();
            }

            @Override
            public CompletableFuture<?> unblockAsync() {
                return blocking[0].releaseAsync();
            }

            @Override
            public CompletableFuture<?> start(boolean timed) {
                return timed ? mine.tryAcquireAsync(TIMED_WAIT) : mine.acquireAsync();
            }

            @Override
            public String awaited() {
                return name;
            }

            @Override
            public void giveBack(Object acquired) {
                (acquired instanceof Optional<?> some ? (Permit) some.orElseThrow() : (Permit) acquired).release();
            }

            @Override
            public boolean quiet() {
                return "1".equals(raw.sync().get(name)) && raw.sync().zcard(table) == 0;
            }

            @Override
            public String state() {
                return name + " = " + raw.sync().get(name) + ", " + table + " " + raw.sync().zrange(table, 0, -1);
            }

            @Override
            public void reset() {
                raw.sync().del(name, table);
                theirs.trySetPermits(1);
            }
        };
    }
}
