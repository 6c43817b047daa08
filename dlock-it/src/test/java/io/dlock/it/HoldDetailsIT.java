package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockInfo;
import io.dlock.NotALockException;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Subscribers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Per-hold details, opt-in ({@code LockClientConfig.Builder.holdDetails}; docs/protocol.md §6.2): a plain lock's hold
 * record {@code dlock_hold:{NAME}} names its holder, since when it holds and the thread that asked; it is written by
 * the script that gives the hold (acquisition or local hand-off), kept with the hold's TTL (re-entry, watchdog
 * renewal, extension), and deleted by its last release; a crashed holder's record expires with its hold.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HoldDetailsIT {
    private RawRedis raw;

    @BeforeEach
    void connect(RedisServer server) {
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void close() {
        raw.close();
    }

    private static String record(String name) {
        return "dlock_hold:{" + name + "}";
    }

    private static LockClient detailed(RedisServer server, long watchdogMs) {
        return LockClient.create(LockClientConfig.builder().redisUri(server.uri()).holdDetails(true)
                .watchdogTimeout(Duration.ofMillis(watchdogMs)).build());
    }

    /** Runs {@code body} on a new thread named {@code name} and waits for it (its failure is rethrown). */
    private static void onThread(String name, Runnable body) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, name);
        t.start();
        done.get(20, TimeUnit.SECONDS);
    }

    @Test
    void inspectNamesTheThreadAndSinceOfAHoldAndTheLastReleaseDeletesTheRecord(RedisServer server, LockClient reader)
            throws Exception {
        String name = "details:basic";
        try (LockClient client = detailed(server, 30_000)) {
            DistributedLock lock = client.getLock(name);
            Instant before = Instant.now();
            AtomicReference<LockInfo.HoldDetails> first = new AtomicReference<>();
            onThread("orders-worker-7", () -> {
                lock.lock();
                Instant after = Instant.now();
                LockInfo info = reader.inspect(name);
                assertThat(info.holders()).singleElement().satisfies(h -> {
                    assertThat(h.details()).isPresent();
                    LockInfo.HoldDetails d = h.details().orElseThrow();
                    assertThat(d.thread()).isEqualTo("orders-worker-7");
                    // the server's clock on the same host: within a second of this JVM's
                    assertThat(d.since()).isBetween(before.minusSeconds(1), after.plusSeconds(1));
                    first.set(d);
                });
                assertThat(raw.hgetall(record(name))).containsEntry("holder",
                        RawRedis.field(client.getId(), Thread.currentThread().getId()));
                assertThat(raw.pttl(record(name))).isPositive().isLessThanOrEqualTo(raw.pttl(name) + 5);

                // a re-entry keeps the hold's since, and gives the record its lease (here a short one)
                try {
                    assertThat(lock.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                assertThat(reader.inspect(name).holders()).singleElement()
                        .satisfies(h -> assertThat(h.details()).contains(first.get()));
                assertThat(raw.pttl(record(name))).isLessThanOrEqualTo(300);
                lock.unlock();
                assertThat(raw.exists(record(name))).as("the record outlives a partial release").isTrue();
                assertThat(raw.pttl(record(name))).as("and follows the hash's TTL, the outer watchdog lease's")
                        .isGreaterThan(1_000);
                lock.unlock();
            });
            assertThat(raw.exists(name)).isFalse();
            assertThat(raw.exists(record(name))).as("the last release deletes the record").isFalse();
        }
    }

    @Test
    void theRecordLivesAsLongAsAWatchdogHoldAndExpiresWithACrashedOne(RedisServer server, LockClient reader)
            throws Exception {
        String name = "details:watchdog";
        try (LockClient client = detailed(server, 600)) {
            DistributedLock lock = client.getLock(name);
            onThread("long-holder", () -> {
                lock.lock();
                // three watchdog timeouts: the record's first TTL (600 ms) is long gone unless renewals extend it
                Await.during(Duration.ofMillis(1_800), () -> raw.exists(record(name)) && raw.pttl(record(name)) > 0,
                        "the record renewed with its watchdog hold");
                assertThat(reader.inspect(name).holders()).singleElement()
                        .satisfies(h -> assertThat(h.details().map(LockInfo.HoldDetails::thread))
                                .contains("long-holder"));
                lock.unlock();
            });
            assertThat(raw.exists(record(name))).isFalse();
        }
        // a holder that never releases (a fixed lease, its client gone without a word): the record expires with it
        String crashed = "details:crashed";
        LockClient gone = detailed(server, 30_000);
        onThread("crashing-holder", () -> {
            try {
                assertThat(gone.getLock(crashed).tryLock(0, 700, TimeUnit.MILLISECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(raw.pttl(record(crashed))).isPositive().isLessThanOrEqualTo(700);
        Await.until(Duration.ofSeconds(5), () -> !raw.exists(crashed) && !raw.exists(record(crashed)),
                "the lock and its record expired");
        gone.close();
    }

    @Test
    void aLocalHandOffRewritesTheRecordForTheReceivingThread(RedisServer server, LockClient reader)
            throws Exception {
        String name = "details:handoff";
        try (LockClient client = detailed(server, 30_000)) {
            DistributedLock lock = client.getLock(name);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Instant> firstSince = new CompletableFuture<>();
            Thread holder = new Thread(() -> {
                lock.lock();
                firstSince.complete(reader.inspect(name).holders().get(0).details().orElseThrow().since());
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                lock.unlock();
            }, "first-holder");
            holder.start();
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            long scriptsBefore = raw.scriptCalls();
            CompletableFuture<LockInfo> seenBySecond = new CompletableFuture<>();
            Thread second = new Thread(() -> {
                lock.lock();
                seenBySecond.complete(reader.inspect(name));
                lock.unlock();
            }, "second-holder");
            second.start();
            Await.until(Subscribers.SETTLE, () -> Leaks.diagnostics(client).waiters() >= 1,
                    () -> "the second thread waits: " + Leaks.diagnostics(client));
            release.countDown();
            LockInfo info = seenBySecond.get(10, TimeUnit.SECONDS);
            assertThat(info.holders()).singleElement().satisfies(h -> {
                assertThat(h.threadId()).isEqualTo(second.getId());
                LockInfo.HoldDetails d = h.details().orElseThrow();
                assertThat(d.thread()).isEqualTo("second-holder");
                assertThat(d.since()).isAfterOrEqualTo(firstSince.get());
            });
            holder.join(5_000);
            second.join(5_000);
            assertThat(raw.scriptCalls() - scriptsBefore).as("script calls of the hand-over, whichever path it took")
                    .isPositive();
            assertThat(raw.exists(record(name))).isFalse();
        }
    }

    @Test
    void aClientWithoutHoldDetailsWritesNoRecordAndInspectShowsNone(RedisServer server, LockClient plain) {
        String name = "details:off";
        DistributedLock lock = plain.getLock(name);
        lock.lock();
        try {
            assertThat(raw.exists(record(name))).isFalse();
            assertThat(plain.inspect(name).holders()).singleElement()
                    .satisfies(h -> assertThat(h.details()).isEmpty());
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aStaleRecordOfAnotherHolderIsNotShownAndAKeyOfAnotherTypeIsRefusedNamed(RedisServer server,
                                                                                  LockClient plain) throws Exception {
        String name = "details:stale";
        // a record left by a holder that no longer holds (its TTL not yet run out): not the current holder's
        raw.sync().hset(record(name), java.util.Map.of("holder", "someone:1", "since", "1", "thread", "old"));
        raw.sync().pexpire(record(name), 10_000);
        DistributedLock lock = plain.getLock(name);
        lock.lock();
        try {
            assertThat(plain.inspect(name).holders()).singleElement()
                    .satisfies(h -> assertThat(h.details()).isEmpty());
        } finally {
            lock.unlock();
        }

        String wrong = "details:wrong";
        raw.sync().set(record(wrong), "not a record");
        try (LockClient client = detailed(server, 30_000)) {
            onThread("refused", () -> assertThatThrownBy(() -> client.getLock(wrong).lock())
                    .isInstanceOf(NotALockException.class)
                    .hasMessageContaining(wrong).hasMessageContaining("not a hold record"));
        }
        assertThat(raw.exists(wrong)).as("nothing was written").isFalse();
        assertThat(raw.sync().get(record(wrong))).isEqualTo("not a record");
    }
}
