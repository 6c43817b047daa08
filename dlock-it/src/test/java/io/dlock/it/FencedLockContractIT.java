package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.Redissons;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import org.junit.jupiter.api.Test;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lock contract for {@link LockClient#getFencedLock(String)} (the reentrant lock's wire layout: same hash, field
 * and channel), plus the tokens: one per acquisition (not per re-entry), strictly increasing for a name across
 * clients, Redisson's {@code RFencedLock}, and the loss of every key; lease honoured; no-wait single attempt.
 */
class FencedLockContractIT extends AbstractLockContractIT {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getFencedLock(name);
    }

    /** The token counters stay (they must never go back); nothing else may. */
    @Override
    protected void assertNothingLeftOnServer() {
        assertThat(raw.keys()).as("keys left on the server besides token counters")
                .allMatch(key -> key.startsWith("redisson_lock_token:"));
    }

    private FencedLock fenced(LockClient client) {
        return (FencedLock) on(client);
    }

    private String tokenKey() {
        return "redisson_lock_token:{" + name + "}";
    }

    /** Redis TIME in microseconds since the epoch. */
    private long serverMicros() {
        List<String> time = raw.sync().time();
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    // ------------------------------------------------------------------------------------------ tokens

    @Test
    void everyAcquisitionTakesAGreaterTokenAndReentryKeepsIt(LockClient a, LockClient b) throws Exception {
        FencedLock lock = fenced(a);
        assertThat(lock.getToken()).as("token before any hold").isNull();

        long before = serverMicros();
        long first = lock.lockAndGetToken();
        long after = serverMicros();
        assertThat(first).as("a fresh counter starts at the server clock (µs)").isBetween(before, after);
        assertThat(raw.sync().get(tokenKey())).isEqualTo(Long.toString(first));
        assertThat(lock.getToken()).isEqualTo(first);

        // re-entry: same hold, same token, no new one issued
        assertThat(lock.lockAndGetToken()).isEqualTo(first);
        assertThat(lock.tryLockAndGetToken()).isEqualTo(first);
        assertThat(on(a).isHeldByCurrentThread()).isTrue();
        assertThat(((FencedLock) on(a)).getToken()).as("another lock object of the same client").isEqualTo(first);
        assertThat(raw.sync().get(tokenKey())).isEqualTo(Long.toString(first));
        assertThat(workers.call(TASK_BOUND, lock::getToken)).as("token of a thread that holds nothing").isNull();
        lock.unlock();
        lock.unlock();
        assertThat(lock.getToken()).as("still held once").isEqualTo(first);
        lock.unlock();
        assertThat(lock.getToken()).as("token after the last unlock").isNull();

        // every kind of acquisition, by either client, takes the next one
        List<Long> tokens = new ArrayList<>(List.of(first));
        FencedLock other = fenced(b);
        tokens.add(other.lockAndGetToken(10, SECONDS));
        other.unlock();
        tokens.add(lock.tryLockAndGetToken(1, 10, SECONDS));
        lock.unlock();
        assertThat(lock.tryLock()).isTrue();
        tokens.add(lock.getToken());
        lock.unlock();
        lock.lock();
        tokens.add(lock.getToken());
        lock.unlock();
        tokens.add(other.tryLockAndGetToken());
        other.unlock();
        assertThat(lock.as(LockOwner.of(4242L)).lockAsync(2, SECONDS)).succeedsWithin(TASK_BOUND);
        assertThat(lock.as(LockOwner.of(4242L)).unlockAsync()).succeedsWithin(TASK_BOUND);
        long last = Long.parseLong(raw.sync().get(tokenKey()));
        tokens.add(last);
        assertThat(tokens).doesNotContainNull().isSorted().doesNotHaveDuplicates();
        assertThat(a.inspect(name).fencingToken()).as("inspect shows the last issued token").isEqualTo(last);
        assertFreeOnWire(name);
    }

    @Test
    void tokensStayAboveTheServerClockSoLosingTheCounterCannotTakeThemBack(RedisServer server, LockClient a) {
        FencedLock lock = fenced(a);
        long beforeRestart = lock.lockAndGetToken();
        lock.unlock();

        // a counter deleted by hand (or by Redisson's delete()): the next token is still greater
        raw.sync().del(tokenKey());
        long afterDelete = lock.lockAndGetToken();
        assertThat(afterDelete).isGreaterThan(beforeRestart);
        lock.unlock();

        // a counter far below the clock (Redisson counted 1, 2, 3 …): the next token jumps to the clock
        raw.sync().set(tokenKey(), "3");
        long afterSmall = lock.lockAndGetToken();
        assertThat(afterSmall).isGreaterThan(afterDelete);
        lock.unlock();

        // a counter above the clock: plain + 1
        long ahead = serverMicros() + 60_000_000L;
        raw.sync().set(tokenKey(), Long.toString(ahead));
        assertThat(lock.lockAndGetToken()).isEqualTo(ahead + 1);
        lock.unlock();
        raw.sync().set(tokenKey(), Long.toString(afterSmall));

        // Redis restarts without persistence: every key is gone, the token still goes up
        server.restart();
        Await.until(Duration.ofSeconds(20), () -> {
            try {
                return lock.tryLock();
            } catch (LockException notYetReconnected) {
                return false;
            }
        }, "the client should lock again after the restart");
        long afterRestart = lock.getToken();
        lock.unlock();
        assertThat(afterRestart).isGreaterThan(afterSmall);
        assertThat(raw.sync().get(tokenKey())).isEqualTo(Long.toString(afterRestart));
    }

    @Test
    void counterThatIsNotAnIntegerFailsTheAcquisitionWithNothingWritten(LockClient a) {
        FencedLock lock = fenced(a);
        raw.sync().set(tokenKey(), "not-a-number");
        assertThatThrownBy(lock::lockAndGetToken).isInstanceOf(LockException.class)
                .hasMessageContaining(name).hasMessageContaining("not an integer");
        assertThatThrownBy(lock::tryLockAndGetToken).isInstanceOf(LockException.class);
        assertFreeOnWire(name);
        assertThat(lock.getToken()).isNull();

        raw.sync().del(tokenKey());
        raw.sync().hset(tokenKey(), "x", "1");
        assertThatThrownBy(lock::lockAndGetToken).isInstanceOf(LockException.class)
                .hasMessageContaining("WRONGTYPE");
        assertFreeOnWire(name);
        raw.sync().del(tokenKey());
    }

    /**
     * An attempt whose reply was lost (command timeout) may still have run in Redis: the owner's field is there but
     * its client knows of no hold. The next acquisition adopts it (count 1, new token) instead of counting a
     * re-entry on top, which the owner's unlock would never bring back to zero.
     */
    @Test
    void anUnknownHoldOfTheOwnerIsAdoptedNotReentered(LockClient a) {
        FencedLock lock = fenced(a);
        long before = lock.lockAndGetToken();
        lock.unlock();
        String field = ownerField(a, tid());
        raw.sync().hset(name, field, "1");
        raw.sync().pexpire(name, 60_000);
        long orphanToken = before + 1;
        raw.sync().set(tokenKey(), Long.toString(orphanToken));

        long token = lock.lockAndGetToken();
        assertThat(token).as("a new token, not the orphan's").isGreaterThan(orphanToken);
        assertHeldOnWire(name, a, tid(), 1);
        assertThat(raw.pttl(name)).as("TTL reset to the watchdog lease").isBetween(1L, (long) WATCHDOG_MS);
        assertThat(lock.lockAndGetToken()).as("a real re-entry keeps the token").isEqualTo(token);
        assertHeldOnWire(name, a, tid(), 2);
        lock.unlock();
        lock.unlock();
        assertFreeOnWire(name);
    }

    // ------------------------------------------------------------------------------------------ leases, waiting

    @Test
    void lockAndGetTokenHonoursTheLease(LockClient a, LockClient b) throws InterruptedException {
        FencedLock lock = fenced(a);
        long start = System.nanoTime();
        long token = lock.lockAndGetToken(600, MILLISECONDS);
        assertThat(raw.pttl(name)).isBetween(1L, 600L);
        assertThat(lock.leaseValidFor()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(600));
        assertThat(Leaks.diagnostics(a).renewedHolds()).as("a fixed lease is not renewed").isZero();

        FencedLock next = fenced(b);
        Long nextToken = next.tryLockAndGetToken(3, 10, SECONDS);
        assertThat(Await.millisSince(start)).as("ms until the 600 ms lease let b in").isBetween(550L, 1600L);
        assertThat(nextToken).isNotNull().isGreaterThan(token);
        assertThat(lock.getToken()).as("a's hold expired").isNull();
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        next.unlock();
    }

    @Test
    void tryLockAndGetTokenMakesOneAttemptAndNeverWaits(LockClient a, LockClient b) {
        FencedLock holder = fenced(a);
        long token = holder.lockAndGetToken(60, SECONDS);
        FencedLock lock = fenced(b);
        long t = System.nanoTime();
        assertThat(lock.tryLockAndGetToken()).isNull();
        assertThat(Await.millisSince(t)).as("ms tryLockAndGetToken() took").isLessThan(AT_ONCE_MS);
        assertThat(lock.getToken()).isNull();
        assertThat(raw.sync().get(tokenKey())).as("a failed attempt issues no token").isEqualTo(Long.toString(token));
        holder.unlock();
        assertThat(lock.tryLockAndGetToken()).isGreaterThan(token);
        lock.unlock();
    }

    @Test
    void aWaiterGetsItsTokenWhenTheHolderLetsGo(LockClient a, LockClient b) throws Exception {
        FencedLock holder = fenced(a);
        long token = holder.lockAndGetToken();
        FencedLock lock = fenced(b);
        Future<Long> waiter = workers.submit(() -> {
            long mine = lock.lockAndGetToken();
            lock.unlock();
            return mine;
        });
        Leaks.awaitWaiters(b, 1);
        holder.unlock();
        assertThat(Workers.get(waiter, TASK_BOUND)).isGreaterThan(token);
    }

    // ------------------------------------------------------------------------------------------ Redisson

    @Test
    void redissonFencedAndPlainLocksShareTheLockAndTheSequence(RedisServer server, LockClient a)
            throws InterruptedException {
        RedissonClient redisson = Redissons.connect(server, 5000);
        try {
            FencedLock ours = fenced(a);
            RFencedLock theirs = redisson.getFencedLock(name);
            RLock theirPlain = redisson.getLock(name);

            long t1 = ours.lockAndGetToken();
            assertThat(theirs.tryLock()).as("Redisson fenced lock while dlock holds").isFalse();
            assertThat(theirPlain.tryLock()).as("Redisson RLock while dlock holds").isFalse();
            ours.unlock();

            Long t2 = theirs.lockAndGetToken();
            assertThat(t2).as("Redisson continues our sequence with INCR").isEqualTo(t1 + 1);
            assertThat(ours.tryLockAndGetToken()).as("dlock while Redisson's fenced lock holds").isNull();
            theirs.unlock();

            long t3 = ours.lockAndGetToken();
            assertThat(t3).isGreaterThan(t2);
            ours.unlock();

            theirPlain.lock();
            assertThat(ours.tryLockAndGetToken()).as("dlock while Redisson's RLock holds").isNull();
            theirPlain.unlock();
            assertThat(theirs.getToken()).as("Redisson reads the last issued token").isEqualTo(t3);
        } finally {
            redisson.shutdown(0, 5, SECONDS);
        }
    }
}
