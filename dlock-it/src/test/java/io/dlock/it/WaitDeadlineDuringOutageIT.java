package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedLock;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.Permit;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kind's timed wait ends by its deadline while Redis is silent (issue 27, point 14): a wait of
 * {@value #WAIT_MS} ms under a command timeout of {@value #COMMAND_TIMEOUT_MS} ms returns {@code false} (or fails
 * with a {@link LockException}) within {@value #WAIT_MS} + {@value #LATE_MS} ms, measured on the calling thread (plus
 * what the JVM's scheduler itself adds right then: a control thread parked for the same wait beside the caller tells
 * how late a loaded machine wakes any thread; on an idle one it adds nothing), for
 * the plain, fair, read, write and fenced locks, the multi-lock over separate slots and over one slot, the semaphore,
 * the leased semaphore and the latch's await, each sync and async. Redis is stopped with SIGSTOP (the test kit's
 * {@link RedisServer#pause()}) either before the call ({@link Silence#FROM_THE_START}) or once the caller waits,
 * subscribed to its wake-ups ({@link Silence#WHILE_WAITING}: the give-up at the deadline goes to a silent Redis).
 *
 * <p>The object is busy all along (held by another client, no permit left, a count of 1), so that nothing can be
 * granted: an answer of {@code true} is a failure too. {@link WaitLimitDuringOutageIT} checks the cleaning up after
 * such a wait; this test only its deadline.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(commandTimeoutMillis = WaitDeadlineDuringOutageIT.COMMAND_TIMEOUT_MS, watchdogTimeoutMillis = 9_000)
@Timeout(value = 60, unit = SECONDS)
class WaitDeadlineDuringOutageIT {
    static final long COMMAND_TIMEOUT_MS = 500;
    static final long WAIT_MS = 1_000;
    /** How late after its deadline a wait may return (issue 27: deadline + 50 ms). */
    static final long LATE_MS = 50;

    /** What waits. */
    enum Waiter {
        PLAIN, FAIR, READ, WRITE, FENCED, MULTI_SPREAD, MULTI_ONE_SLOT, SEMAPHORE, LEASED_SEMAPHORE, LATCH
    }

    /** When Redis stops answering. */
    enum Silence {
        /** Before the call: its first command already gets no answer. */
        FROM_THE_START,
        /** Once the caller is subscribed to its wake-ups, waiting: its give-up at the deadline gets no answer. */
        WHILE_WAITING
    }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (Waiter waiter : Waiter.values()) {
            for (Silence silence : Silence.values()) {
                for (boolean async : new boolean[] {false, true}) {
                    all.add(Arguments.of(waiter, silence, async));
                }
            }
        }
        return all.stream();
    }

    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:WaitDeadline:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
    }

    /** One timed wait: started by {@link #start}, its outcome (true / false / failure) read by the caller. */
    private interface Wait {
        /** Sync: the call itself; async: the call and {@code get()} of its future, on the calling thread. */
        Object call(boolean async) throws Exception;
    }

    @ParameterizedTest(name = "{0} {1} async={2}")
    @MethodSource("cases")
    void aTimedWaitEndsByItsDeadlineWhileRedisIsSilent(Waiter waiter, Silence silence, boolean async, LockClient a,
                                                       LockClient b, RedisServer server) throws Exception {
        Wait wait = busy(waiter, a, b);
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            long[] took = new long[1];
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            Thread caller = new Thread(() -> {
                long start = System.nanoTime();
                Object result;
                try {
                    result = wait.call(async);
                } catch (Throwable e) {
                    result = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                }
                took[0] = (System.nanoTime() - start) / 1_000_000;
                outcome.complete(result);
            }, "waiter");
            // a control beside the caller: how late this JVM wakes a thread that parks for the same wait, right then
            // (a loaded machine wakes every thread late; the wait is judged on what the client adds to that)
            long[] schedulerLate = new long[1];
            Thread control = new Thread(() -> {
                long start = System.nanoTime();
                java.util.concurrent.locks.LockSupport.parkNanos(MILLISECONDS.toNanos(WAIT_MS));
                schedulerLate[0] = Math.max(0, (System.nanoTime() - start) / 1_000_000 - WAIT_MS);
            }, "scheduler-control");
            if (silence == Silence.FROM_THE_START) {
                server.pause();
            }
            try {
                control.start();
                caller.start();
                if (silence == Silence.WHILE_WAITING) {
                    Await.until(Duration.ofMillis(WAIT_MS - 100), () -> waiting(raw) || outcome.isDone(),
                            () -> "the caller of " + waiter + " never subscribed to a channel of '" + name + "': "
                                    + raw.channels());
                    assertThat(outcome).as("the wait ended before Redis stopped").isNotDone();
                    server.pause();
                }
                Object result = outcome.get(20, SECONDS);
                control.join(20_000);
                assertThat(result).as("what the wait of %s answered while Redis was silent", waiter)
                        .satisfiesAnyOf(r -> assertThat(r).isEqualTo(Boolean.FALSE),
                                r -> assertThat(r).isEqualTo(Optional.empty()),
                                r -> assertThat(r).isInstanceOf(LockException.class));
                assertThat(took[0]).as("ms until the %d ms wait of %s (%s, async=%s) returned on its calling thread;"
                        + " it answered %s; a thread parked as long woke %d ms late", WAIT_MS, waiter, silence, async,
                        result, schedulerLate[0]).isLessThanOrEqualTo(WAIT_MS + LATE_MS + schedulerLate[0]);
            } finally {
                server.resume();
                caller.join(20_000);
            }
        }
    }

    /** Whether the caller is subscribed to a channel of this test's object (it waits for a wake-up). */
    private boolean waiting(RawRedis raw) {
        return raw.channels().stream().anyMatch(c -> c.contains(name));
    }

    /** Makes the object of {@code waiter} busy through client {@code b}, and returns client {@code a}'s wait on it. */
    private Wait busy(Waiter waiter, LockClient a, LockClient b) throws Exception {
        return switch (waiter) {
            case PLAIN, FAIR, READ, WRITE, FENCED -> {
                LockKind kind = LockKind.valueOf(waiter.name());
                b.getLock(kind == LockKind.READ ? LockKind.WRITE : kind, name).lock();
                yield lockWait(a.getLock(kind, name));
            }
            case MULTI_SPREAD, MULTI_ONE_SLOT -> {
                List<String> members = new ArrayList<>();
                for (String m : List.of("a", "b", "c")) {
                    members.add(waiter == Waiter.MULTI_SPREAD ? name + ":" + m : "{" + name + "}:" + m);
                }
                b.getLock(members.get(2)).lock(); // the last member: the others may be taken before it is tried
                List<DistributedLock> locks = new ArrayList<>();
                for (String m : members) {
                    locks.add(a.getLock(m));
                }
                yield lockWait(a.getMultiLock(locks));
            }
            case SEMAPHORE -> {
                a.getSemaphore(name).trySetPermits(1);
                assertThat(b.getSemaphore(name).tryAcquire()).isTrue();
                DistributedSemaphore semaphore = a.getSemaphore(name);
                yield async -> async ? semaphore.tryAcquireAsync(1, Duration.ofMillis(WAIT_MS)).get()
                        : semaphore.tryAcquire(1, Duration.ofMillis(WAIT_MS));
            }
            case LEASED_SEMAPHORE -> {
                a.getLeasedSemaphore(name).trySetPermits(1);
                Optional<Permit> held = b.getLeasedSemaphore(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
                assertThat(held).isPresent();
                LeasedSemaphore semaphore = a.getLeasedSemaphore(name);
                yield async -> async
                        ? semaphore.tryAcquireAsync(Duration.ofMillis(WAIT_MS), Duration.ofSeconds(10)).get()
                        : semaphore.tryAcquire(Duration.ofMillis(WAIT_MS), Duration.ofSeconds(10));
            }
            case LATCH -> {
                DistributedCountDownLatch latch = a.getCountDownLatch(name);
                assertThat(latch.trySetCount(1, Duration.ofMinutes(1))).isTrue();
                yield async -> async ? latch.awaitAsync(WAIT_MS, MILLISECONDS).get()
                        : latch.await(WAIT_MS, MILLISECONDS);
            }
        };
    }

    private static Wait lockWait(DistributedLock lock) {
        return async -> async ? lock.tryLockAsync(WAIT_MS, TimeUnit.MILLISECONDS).get()
                : lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS);
    }
}
