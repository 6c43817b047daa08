package io.dlock.it;

import io.dlock.internal.script.LuaScript;
import io.dlock.internal.script.Scripts;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fair lock's scripts called directly with a chosen clock, so that the deadline arithmetic is checked exactly and
 * without sleeping: enqueue and refresh, the shift on acquisition and give-up (Redisson's arithmetic), the stale-head
 * cleanup, the sleep bounds (never 0 behind a head on its way), and who gets woken.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 30, unit = SECONDS)
class FairLockScriptsIT {
    /**
     * Owner fields of the shape a lock has ({@code <uuid>:<owner id>}; the scripts refuse a hash of other fields as
     * not a lock): the holder H and the waiters A, B, C, D, X, Y, Z.
     */
    private static final String H = owner("0");
    private static final String A = owner("a");
    private static final String B = owner("b");
    private static final String C = owner("c");
    private static final String D = owner("d");
    private static final String X = owner("1");
    private static final String Y = owner("2");
    private static final String Z = owner("3");

    private static String owner(String hexDigit) {
        return "00000000-0000-4000-8000-00000000000" + hexDigit + ":1";
    }

    private static final String NAME = "it:fair:scripts";
    private static final String QUEUE = "redisson_lock_queue:{" + NAME + "}";
    private static final String TIMEOUTS = "redisson_lock_timeout:{" + NAME + "}";
    private static final String CHANNEL = "redisson_lock__channel:{" + NAME + "}";
    private static final String[] KEYS = {NAME, QUEUE, TIMEOUTS};
    private static final long T = 1_700_000_000_000L;
    private static final long SLOT = 1000;
    private static final long MAX_SLEEP = 60_000;

    private RawRedis raw;

    @BeforeEach
    void connect(RedisServer server) {
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void close() {
        raw.close();
    }

    private Long run(LuaScript script, String... args) {
        return raw.sync().eval(script.text(), ScriptOutputType.INTEGER, KEYS, args);
    }

    /** One waiting attempt of {@code field} at {@code now}, lease 30 s. */
    private Long attempt(String field, long slot, long now) {
        return run(Scripts.FAIR_ACQUIRE, "30000", field, Long.toString(slot), Long.toString(now), "1",
                Long.toString(MAX_SLEEP));
    }

    private Long tryOnce(String field, long now) {
        return run(Scripts.FAIR_ACQUIRE, "30000", field, Long.toString(SLOT), Long.toString(now), "0",
                Long.toString(MAX_SLEEP));
    }

    private Long giveUp(String field, long slot, long now) {
        return run(Scripts.FAIR_GIVE_UP, field, Long.toString(slot), Long.toString(now), "publish", CHANNEL);
    }

    private Long release(String field, long now) {
        return run(Scripts.FAIR_RELEASE, field, "30000", Long.toString(now), "publish", CHANNEL);
    }

    private List<String> queue() {
        return raw.sync().lrange(QUEUE, 0, -1);
    }

    /** Deadlines relative to {@link #T}, in queue order. */
    private Map<String, Long> deadlines() {
        Map<String, Long> byField = new LinkedHashMap<>();
        for (String field : queue()) {
            Double score = raw.sync().zscore(TIMEOUTS, field);
            byField.put(field, score == null ? null : score.longValue() - T);
        }
        assertThat(raw.sync().zcard(TIMEOUTS)).as("deadlines and queue hold the same members")
                .isEqualTo(byField.size());
        return byField;
    }

    /** A hold without TTL (PTTL -1): Redisson's enqueue formula then adds nothing, so deadlines are exact. */
    private void holdForever(String field) {
        raw.sync().hset(NAME, field, "1");
    }

    private void holdBy(String field, long pttl) {
        raw.sync().hset(NAME, field, "1");
        raw.sync().pexpire(NAME, pttl);
    }

    @Test
    void waitersGetOneSlotPerWaiterAheadAndEveryAttemptRaisesIt() {
        holdForever(H);
        assertThat(attempt(A, SLOT, T)).as("no TTL to bound the sleep: the caller's cap").isEqualTo(MAX_SLEEP);
        attempt(B, SLOT, T);
        attempt(C, SLOT, T);
        assertThat(deadlines()).containsExactly(Map.entry(A, 1000L), Map.entry(B, 2000L),
                Map.entry(C, 3000L));

        // a later attempt (the waiter is alive) moves its own deadline forward, keeping its place
        attempt(B, SLOT, T + 500);
        attempt(A, SLOT, T + 800);
        assertThat(deadlines()).containsExactly(Map.entry(A, 1800L), Map.entry(B, 2500L),
                Map.entry(C, 3000L));

        // but never backward
        raw.sync().zadd(TIMEOUTS, T + 9000, C);
        attempt(C, SLOT, T + 900);
        assertThat(deadlines()).containsEntry(C, 9000L);
    }

    @Test
    void theSleepIsThePttlCappedByTheCaller() {
        holdBy(H, 20_000);
        assertThat(attempt(A, SLOT, T)).as("the head: the lock's PTTL").isBetween(19_000L, 20_000L);
        assertThat(attempt(B, SLOT, T)).as("behind the head, lock held: the PTTL").isBetween(19_000L, 20_000L);
        assertThat(run(Scripts.FAIR_ACQUIRE, "30000", B, "1000", Long.toString(T + 10), "1", "333"))
                .isEqualTo(333L);
    }

    @Test
    void aNewWaiterGetsAtLeastTheDeadlineOfRedissonsEnqueue() {
        holdBy(H, 20_000);
        long now = System.currentTimeMillis();
        attempt(A, SLOT, now);
        attempt(B, SLOT, now);
        // Redisson: the lock's PTTL plus the slot for the first, the last one's deadline plus the slot after it
        Double a = raw.sync().zscore(TIMEOUTS, A);
        Double b = raw.sync().zscore(TIMEOUTS, B);
        assertThat(a.longValue() - now).isBetween(20_000L, 21_000L);
        assertThat(b.longValue() - a.longValue()).isEqualTo(SLOT);
    }

    @Test
    void takingTheLockFromTheHeadMovesEveryDeadlineOneSlotEarlier() {
        holdForever(H);
        attempt(A, SLOT, T);
        attempt(B, SLOT, T);
        attempt(C, 3000, T);
        assertThat(deadlines()).containsExactly(Map.entry(A, 1000L), Map.entry(B, 2000L),
                Map.entry(C, 9000L));

        raw.sync().del(NAME);
        assertThat(attempt(B, SLOT, T + 10)).as("not first in line: no lock").isNotNull();
        assertThat(tryOnce(Z, T + 10)).as("a single attempt ahead of the queue").isNotNull();
        assertThat(attempt(A, SLOT, T + 10)).as("first in line, lock free").isNull();
        assertThat(raw.hgetall(NAME)).isEqualTo(Map.of(A, "1"));
        assertThat(raw.pttl(NAME)).isBetween(29_000L, 30_000L);
        // b refreshed to T+10+2000 before, c kept 9000; both one slot (a's) earlier now
        assertThat(deadlines()).containsExactly(Map.entry(B, 1010L), Map.entry(C, 8000L));
    }

    @Test
    void behindAHeadOnItsWayTheSleepIsUntilTheHeadsDeadlineNotZero() {
        holdForever(H);
        attempt(A, SLOT, T);
        attempt(B, SLOT, T);
        raw.sync().del(NAME);
        // Redisson answers 0 here, and its waiter polls in a loop
        assertThat(attempt(B, SLOT, T + 300)).isEqualTo(700L);
        // but a head that never comes is dropped at its deadline, and the next one takes the lock
        assertThat(attempt(B, SLOT, T + 1000)).isNull();
        assertThat(raw.keys()).containsExactly(NAME);
    }

    @Test
    void aSingleAttemptNeverQueues() {
        holdBy(H, 20_000);
        assertThat(tryOnce(A, T)).isNotNull();
        assertThat(raw.exists(QUEUE)).isFalse();
        assertThat(raw.exists(TIMEOUTS)).isFalse();
        assertThat(tryOnce(H, T)).as("re-entry").isNull();
        assertThat(raw.hgetall(NAME)).isEqualTo(Map.of(H, "2"));
    }

    @Test
    void expiredHeadsAreDroppedByEveryScript() {
        holdForever(H);
        attempt(A, SLOT, T);
        attempt(B, SLOT, T);
        attempt(C, SLOT, T);
        // a head without a deadline (never written by Redisson or dlock) counts as expired too
        raw.sync().rpush(QUEUE, X);
        raw.sync().lpush(QUEUE, Y);
        assertThat(release("nobody:1", T + 1500)).as("not the holder").isNull();
        assertThat(queue()).as("y (no deadline) and a (deadline T+1000) dropped").containsExactly(B, C, X);
        assertThat(release(H, T + 2500)).isEqualTo(1L);
        assertThat(queue()).containsExactly(C, X);
    }

    @Test
    void aWaiterThatGivesUpLeavesAndThoseBehindMoveUpOneSlot() throws InterruptedException {
        holdForever(H);
        attempt(A, SLOT, T);
        attempt(B, 4000, T);
        attempt(C, SLOT, T);
        attempt(D, SLOT, T);
        // b: 2 x its 4 s slot; c and d: Redisson's enqueue (the last one's deadline plus the slot) is later
        assertThat(deadlines()).containsExactly(Map.entry(A, 1000L), Map.entry(B, 8000L),
                Map.entry(C, 9000L), Map.entry(D, 10_000L));
        assertThat(giveUp(B, 4000, T + 10)).isEqualTo(1L);
        assertThat(deadlines()).containsExactly(Map.entry(A, 1000L), Map.entry(C, 5000L),
                Map.entry(D, 6000L));
        assertThat(giveUp(B, 4000, T + 10)).as("not queued any more").isZero();

        // the head leaves while the lock is free: the new head is told, nobody else would
        raw.sync().del(NAME);
        attempt(C, SLOT, T + 20);
        attempt(D, SLOT, T + 20);
        try (RawRedis.Subscription c = raw.subscribe(CHANNEL + ":" + C);
             RawRedis.Subscription d = raw.subscribe(CHANNEL + ":" + D)) {
            assertThat(giveUp(A, SLOT, T + 30)).isEqualTo(1L);
            assertThat(c.messages().poll(2, SECONDS)).isEqualTo("0");
            assertThat(d.messages().poll(200, MILLISECONDS)).isNull();
        }
        assertThat(queue()).containsExactly(C, D);
    }

    @Test
    void theLastReleaseWakesTheHeadOnlyAndAFailedOneDoesNotTouchTheHold() throws InterruptedException {
        holdBy(H, 20_000);
        raw.sync().hset(NAME, H, "2");
        attempt(A, SLOT, T);
        attempt(B, SLOT, T);
        try (RawRedis.Subscription a = raw.subscribe(CHANNEL + ":" + A);
             RawRedis.Subscription b = raw.subscribe(CHANNEL + ":" + B);
             RawRedis.Subscription plain = raw.subscribe(CHANNEL)) {
            assertThat(release(A, T + 10)).as("a waiter does not hold it").isNull();
            assertThat(release(H, T + 10)).as("partial").isZero();
            assertThat(a.messages().poll(200, MILLISECONDS)).isNull();
            assertThat(release(H, T + 10)).isEqualTo(1L);
            assertThat(a.messages().poll(2, SECONDS)).isEqualTo("0");
            assertThat(b.messages().poll(200, MILLISECONDS)).isNull();
            assertThat(plain.messages()).isEmpty();

            // a release by a non-holder of a free lock fails, and wakes the head all the same
            assertThat(release(H, T + 20)).isNull();
            assertThat(a.messages().poll(2, SECONDS)).isEqualTo("0");

            // forceUnlock wakes the head (it removes only a lock: a holder field of the owner shape <uuid>:<n>)
            holdBy("5be6a1b2-0c3d-4e5f-8a9b-0123456789ab:1", 20_000);
            assertThat(run(Scripts.FAIR_FORCE_RELEASE, Long.toString(T + 30), "publish", CHANNEL)).isEqualTo(1L);
            assertThat(a.messages().poll(2, SECONDS)).isEqualTo("0");
            assertThat(run(Scripts.FAIR_FORCE_RELEASE, Long.toString(T + 30), "publish", CHANNEL)).isZero();
        }
        assertThat(queue()).containsExactly(A, B);
    }

    @Test
    void scoresStayExactEpochMillis() {
        holdForever(H);
        long now = 1_723_456_789_012L;
        run(Scripts.FAIR_ACQUIRE, "30000", A, "300000", Long.toString(now), "1", "100000");
        List<ScoredValue<String>> scores = raw.sync().zrangeWithScores(TIMEOUTS, 0, -1);
        assertThat(scores).hasSize(1);
        assertThat((long) scores.get(0).getScore()).isEqualTo(now + 300_000L);
    }
}
