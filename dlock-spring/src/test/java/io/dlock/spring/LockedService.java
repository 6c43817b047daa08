package io.dlock.spring;

import io.dlock.LockClient;
import io.dlock.LockKind;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A bean with {@link DistributedLocked} methods; one per test instance (context), sharing a {@link Shared}. */
public class LockedService {

    /** State shared by every instance of the service in one test: what the invariants are checked on. */
    public static final class Shared {
        /** Incremented non-atomically under the lock: lost updates show that two calls overlapped. */
        int counter;
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();
        volatile CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(1);

        void reset() {
            counter = 0;
            inside.set(0);
            maxInside.set(0);
            runs.set(0);
            entered = new CountDownLatch(1);
            release = new CountDownLatch(1);
        }

        /** Marks entry; remembers the most calls ever inside at once. */
        void enter() {
            int now = inside.incrementAndGet();
            maxInside.accumulateAndGet(now, Math::max);
        }

        void leave() {
            inside.decrementAndGet();
        }

        /** Signals {@link #entered}, then blocks until {@link #release} (at most 30 s). */
        void holdUntilReleased() {
            entered.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("the test never released the held call");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** A bean to reference from lock names. */
    public static class Tenant {
        public String id() {
            return "acme";
        }
    }

    private final Shared shared;
    private final LockClient client;
    private LockedService self;

    public LockedService(Shared shared, LockClient client) {
        this.shared = shared;
        this.client = client;
    }

    /** The proxy, for nested calls. */
    void self(LockedService proxy) {
        this.self = proxy;
    }

    @DistributedLocked(name = "counter", waitTime = DistributedLocked.WAIT_FOREVER)
    public void increment() {
        shared.enter();
        try {
            int read = shared.counter;
            Thread.yield();
            shared.counter = read + 1;
        } finally {
            shared.leave();
        }
    }

    @DistributedLocked(name = "order:#{#orderId}", whenBusy = WhenBusy.SKIP)
    public boolean holdOrder(long orderId, boolean block) {
        shared.runs.incrementAndGet();
        if (block) {
            shared.holdUntilReleased();
        }
        return true;
    }

    /** Returns whether the lock named as the template should evaluate is held while the method runs. */
    @DistributedLocked(name = "${app.name}:#{@tenant.id()}:#{#root.method.name}:#{#p0}:#{#report}")
    public boolean nameIsEvaluated(int report) {
        return client.getLock("billing:acme:nameIsEvaluated:" + report + ":" + report).isLocked();
    }

    @DistributedLocked(name = "#{#key}")
    public void lockNamed(String key) {
    }

    @DistributedLocked(name = "busy")
    public void holdBusy() {
        shared.runs.incrementAndGet();
        shared.holdUntilReleased();
    }

    @DistributedLocked(name = "busy", waitTime = "200ms")
    public String busyThrows() {
        shared.runs.incrementAndGet();
        return "ran";
    }

    @DistributedLocked(name = "busy", whenBusy = WhenBusy.SKIP)
    public Optional<String> busyOptional() {
        shared.runs.incrementAndGet();
        return Optional.of("ran");
    }

    @DistributedLocked(name = "busy", whenBusy = WhenBusy.SKIP)
    public int busyInt() {
        shared.runs.incrementAndGet();
        return 42;
    }

    @DistributedLocked(name = "busy", whenBusy = WhenBusy.SKIP)
    public boolean busyBoolean() {
        shared.runs.incrementAndGet();
        return true;
    }

    @DistributedLocked(name = "busy", whenBusy = WhenBusy.SKIP)
    public void busyVoid() {
        shared.runs.incrementAndGet();
    }

    @DistributedLocked(name = "failing")
    public void fails() {
        throw new IllegalStateException("boom");
    }

    @DistributedLocked(name = "quick", minHoldTime = "1500ms")
    public void quickJob() {
        shared.runs.incrementAndGet();
    }

    @DistributedLocked(name = "shedlock-style", leaseTime = "1s", minHoldTime = "1s")
    public void minimumHoldAsLongAsTheLease() {
        shared.runs.incrementAndGet();
    }

    @DistributedLocked(name = "quick", whenBusy = WhenBusy.SKIP)
    public boolean quickProbe() {
        return true;
    }

    /** @return the lock's remaining time to live while the method runs */
    @DistributedLocked(name = "leased", leaseTime = "2s")
    public long leased() {
        return client.getLock("leased").remainTimeToLive();
    }

    @DistributedLocked(name = "nested")
    public String outer() {
        return self.inner();
    }

    @DistributedLocked(name = "nested")
    public String inner() {
        return "inner ran";
    }

    /** @return the hold's token as the method reads it, the thread's own token (none), and the last one issued */
    @DistributedLocked(name = "fenced:#{#key}", kind = LockKind.FENCED)
    public Long[] fencedTokens(String key) {
        String name = "fenced:" + key;
        Long token = client.getFencedLock(name).as(LockedCalls.owner(name).orElseThrow()).getToken();
        return new Long[] {token, client.getFencedLock(name).getToken(), client.inspect(name).fencingToken()};
    }

    @DistributedLocked(name = "rw", kind = LockKind.READ, waitTime = "5s")
    public void read() {
        shared.enter();
        try {
            shared.holdUntilReleased();
        } finally {
            shared.leave();
        }
    }

    @DistributedLocked(name = "rw", kind = LockKind.WRITE, whenBusy = WhenBusy.SKIP)
    public boolean write() {
        return true;
    }
}
