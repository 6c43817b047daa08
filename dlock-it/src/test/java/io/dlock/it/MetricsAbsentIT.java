package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.DistributedSemaphore;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockEventListener;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.Leaks;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer is an optional dependency of dlock-core: a JVM without it on the class path locks, waits, renews (a hold
 * kept for three lease lengths, its key's TTL seen raised by the watchdog) and unlocks every kind of lock, reflects on the API's classes, and hears the client's lock events through a
 * {@link LockEventListener} of its own, which follows a permit acquisition and a latch await too ({@link ChildMain},
 * run without any {@code io/micrometer} jar).
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class MetricsAbsentIT {

    @Test
    void everyLockKindWorksWithoutMicrometer(RedisServer server) {
        try (ChildJvm child = ChildJvm.startWithout("/io/micrometer/", "MetricsAbsentIT", ChildMain.class,
                server.uri())) {
            assertThat(child.awaitExit(Duration.ofSeconds(40))).as(child.describe()).isZero();
            assertThat(child.stdout()).as(child.describe()).contains("micrometer absent", "renewed ", "all kinds ok");
        }
    }

    /**
     * Proves Micrometer is absent, then uses each lock kind with an event listener counting acquisitions and
     * releases; exits 0 when all went well.
     */
    public static final class ChildMain {
        private static final Duration LEASE = Duration.ofMillis(1500);

        public static void main(String[] args) throws Exception {
            try {
                Class.forName("io.micrometer.core.instrument.MeterRegistry");
                System.out.println("micrometer present: the test's class path filter failed");
                System.exit(2);
            } catch (ClassNotFoundException expected) {
                System.out.println("micrometer absent");
            }
            // no API signature outside io.dlock.metrics names a Micrometer type, so reflection resolves them all
            for (Class<?> api : new Class<?>[] {LockClient.class, LockClientConfig.class,
                    LockClientConfig.Builder.class, DistributedLock.class, FencedLock.class, LockEventListener.class}) {
                api.getMethods();
            }
            // a watchdog of 1.5 s renews every 0.5 s; its command timeout of 375 ms also lets a cold JVM connect
            LockClientConfig config = LockClientConfig.builder().redisUri(args[0])
                    .watchdogTimeout(LEASE).build();
            AtomicInteger acquired = new AtomicInteger();
            AtomicInteger released = new AtomicInteger();
            AtomicInteger waited = new AtomicInteger();
            LockEventListener.Acquisition countsWaits = new LockEventListener.Acquisition() {
                @Override
                public void ended(LockEventListener.Outcome outcome, Throwable failure) {
                    if (outcome == LockEventListener.Outcome.ACQUIRED) {
                        waited.incrementAndGet();
                    }
                }
            };
            try (LockClient client = connect(config)) {
                client.addEventListener(new LockEventListener() {
                    @Override
                    public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
                        return new Acquisition() {
                            @Override
                            public void ended(Outcome outcome, Throwable failure) {
                                if (outcome == Outcome.ACQUIRED) {
                                    acquired.incrementAndGet();
                                }
                            }
                        };
                    }

                    @Override
                    public void holdReleased(Hold hold) {
                        released.incrementAndGet();
                    }

                    @Override
                    public Acquisition permitAcquisitionStarted(String semaphoreName, boolean leased) {
                        return countsWaits;
                    }

                    @Override
                    public Acquisition latchAwaitStarted(String latchName) {
                        return countsWaits;
                    }
                });
                DistributedLock plain = client.getLock("absent:plain");
                plain.lock();
                // held for three lease lengths: only the watchdog's renewals keep the key alive that long
                int renewals = 0;
                long previousTtl = plain.remainTimeToLive();
                long holdUntil = System.nanoTime() + 3 * LEASE.toNanos() + MILLISECONDS.toNanos(500);
                while (System.nanoTime() - holdUntil < 0) {
                    Thread.sleep(50); // the polling interval, not a guess of how long something takes
                    long ttl = plain.remainTimeToLive();
                    if (ttl <= 0 || ttl > LEASE.toMillis()) {
                        System.out.println("hold not kept by the watchdog: PTTL " + ttl + " ms after " + renewals
                                + " renewal(s)");
                        System.exit(5);
                    }
                    if (ttl > previousTtl) {
                        renewals++;
                    }
                    previousTtl = ttl;
                }
                // a renewal every third of the lease: at least 9 in 3.5 lease lengths; 5 leaves room for a slow one
                if (renewals < 5 || !plain.isHeldByCurrentThread() || plain.leaseValidFor().isZero()) {
                    System.out.println("renewals seen: " + renewals + ", held " + plain.isHeldByCurrentThread()
                            + ", valid for " + plain.leaseValidFor());
                    System.exit(5);
                }
                System.out.println("renewed " + renewals + " times");
                plain.unlock();
                DistributedLock fair = client.getFairLock("absent:fair");
                if (!fair.tryLock(1, SECONDS)) {
                    System.exit(4);
                }
                fair.unlock();
                DistributedReadWriteLock rw = client.getReadWriteLock("absent:rw");
                rw.readLock().lock();
                rw.readLock().unlock();
                rw.writeLock().lock();
                rw.writeLock().unlock();
                FencedLock fenced = client.getFencedLock("absent:fenced");
                fenced.lockAndGetToken();
                fenced.unlock();
                // a second owner waits behind the first, and gets it handed over
                plain.lock();
                var waiter = plain.as(LockOwner.of(9_000_001L)).lockAsync(DistributedLock.LEASE_WATCHDOG, SECONDS);
                Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(client).waiters() == 1
                        && Leaks.diagnostics(client).subscriptions() == 1, "the second owner waits, subscribed");
                plain.unlock();
                waiter.get(10, SECONDS);
                plain.as(LockOwner.of(9_000_001L)).unlockAsync().get(10, SECONDS);
                // the rest of the family: a permit, and a latch that is open (no key)
                DistributedSemaphore semaphore = client.getSemaphore("absent:semaphore");
                semaphore.trySetPermits(1);
                semaphore.acquire();
                semaphore.release();
                if (!client.getCountDownLatch("absent:latch").await(10, SECONDS)) {
                    System.exit(6);
                }
                // seven acquisitions, seven holds released, a permit acquired and a latch opened; an acquisition's end
                // may be told just after its caller
                long deadline = System.nanoTime() + SECONDS.toNanos(10);
                while ((acquired.get() < 7 || released.get() < 7 || waited.get() < 2)
                        && System.nanoTime() - deadline < 0) {
                    Thread.sleep(10);
                }
                if (acquired.get() != 7 || released.get() != 7 || waited.get() != 2) {
                    System.out.println("events: " + acquired + " acquired, " + released + " released, " + waited
                            + " permit/latch waits ended");
                    System.exit(3);
                }
            }
            System.out.println("all kinds ok");
            System.exit(0);
        }

        /** Connects, trying again for a few seconds: a loaded machine may keep a cold JVM from its first connect. */
        private static LockClient connect(LockClientConfig config) throws InterruptedException {
            long deadline = System.nanoTime() + SECONDS.toNanos(10);
            while (true) {
                try {
                    return LockClient.create(config);
                } catch (LockException e) {
                    if (System.nanoTime() - deadline > 0) {
                        throw e;
                    }
                    Thread.sleep(200);
                }
            }
        }
    }
}
