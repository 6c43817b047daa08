package io.dlock.spring;

import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.LockKind;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A locked method called inside another locked method of the same lock name but another kind, on one thread: it must
 * never wait for its own thread's hold (every inner method here waits "forever"). The writer may read (the read side
 * is re-entered by the outer call's owner), plain and fair share one hold, and the pairs that cannot nest fail at once.
 */
@ExtendWith(RedisExtension.class)
class NestedCallsIT {

    public static class Nested {
        private final LockClient client;
        private final AtomicInteger innerRuns = new AtomicInteger();
        private Nested self;

        public Nested(LockClient client) {
            this.client = client;
        }

        void self(Nested proxy) {
            this.self = proxy;
        }

        /** Through the proxy too (a class proxy has fields of its own). */
        int innerRuns() {
            return innerRuns.get();
        }

        @DistributedLocked(name = "nest:rw", kind = LockKind.WRITE)
        public LockInfo writeThenRead() {
            return self.readInside();
        }

        /** @return the lock as Redis has it while both calls run */
        @DistributedLocked(name = "nest:rw", kind = LockKind.READ, waitTime = DistributedLocked.WAIT_FOREVER)
        public LockInfo readInside() {
            return client.inspect("nest:rw");
        }

        @DistributedLocked(name = "nest:rw", kind = LockKind.WRITE)
        public void writeThenReadKeptLonger() {
            self.readKeptLonger();
        }

        @DistributedLocked(name = "nest:rw", kind = LockKind.READ, waitTime = DistributedLocked.WAIT_FOREVER,
                minHoldTime = "1500ms")
        public void readKeptLonger() {
        }

        @DistributedLocked(name = "nest:fair", kind = LockKind.FAIR)
        public String fairThenPlain() {
            return self.plainInside();
        }

        @DistributedLocked(name = "nest:fair", waitTime = DistributedLocked.WAIT_FOREVER)
        public String plainInside() {
            return "plain ran";
        }

        @DistributedLocked(name = "nest:up", kind = LockKind.READ)
        public void readThenWrite() {
            self.writeInside();
        }

        @DistributedLocked(name = "nest:up", kind = LockKind.WRITE, waitTime = DistributedLocked.WAIT_FOREVER)
        public void writeInside() {
            innerRuns.incrementAndGet();
        }

        @DistributedLocked(name = "nest:mixed", kind = LockKind.WRITE)
        public void writeThenPlain() {
            self.plainInMixed();
        }

        @DistributedLocked(name = "nest:mixed", waitTime = DistributedLocked.WAIT_FOREVER)
        public void plainInMixed() {
            innerRuns.incrementAndGet();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking
    @Import(Nested.class)
    public static class NestedConfig {
    }

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Instances instances;
    private Nested nested;

    @BeforeEach
    void start(RedisServer redis) {
        instances = new Instances(redis.uri());
        nested = instances.start(List.of(), NestedConfig.class).getBean(Nested.class);
        nested.self(nested);
    }

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        instances.close();
    }

    /** Runs the call on a thread of its own, so that a self-deadlock fails the test instead of hanging it. */
    private <T> T within10s(Callable<T> call) throws Exception {
        try {
            return threads.submit(call).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    @Test
    void aReadInsideAWriteReEntersTheReadSideAsTheWriter(LockClient observer) throws Exception {
        LockInfo inside = within10s(nested::writeThenRead);
        assertThat(inside.type()).isEqualTo(LockInfo.Type.READ_WRITE);
        assertThat(inside.mode()).isEqualTo(LockInfo.Mode.WRITE);
        assertThat(inside.holders()).as("a write and a read hold, of one owner: %s", inside.holders())
                .extracting(LockInfo.Holder::write).containsExactlyInAnyOrder(true, false);
        assertThat(inside.holders()).extracting(LockInfo.Holder::threadId).containsOnly(
                inside.holders().get(0).threadId());
        assertThat(observer.inspect("nest:rw").type()).as("both released").isEqualTo(LockInfo.Type.NONE);
    }

    @Test
    void theInnerReadKeepsItsOwnMinimumHoldAfterTheWriteIsReleased(LockClient observer) throws Exception {
        within10s(() -> {
            nested.writeThenReadKeptLonger();
            return null;
        });
        var lock = observer.getReadWriteLock("nest:rw");
        assertThat(observer.inspect("nest:rw").mode()).as("downgraded to the read hold").isEqualTo(LockInfo.Mode.READ);
        assertThat(lock.writeLock().tryLock()).as("a writer is kept out by the read hold").isFalse();
        assertThat(lock.readLock().tryLock()).as("readers share").isTrue();
        lock.readLock().unlock();
        Await.until(Duration.ofSeconds(5), () -> observer.inspect("nest:rw").type() == LockInfo.Type.NONE,
                "the read hold released after its minimum hold");
    }

    @Test
    void aPlainCallInsideAFairCallOfTheSameNameRunsInsideItsHold(LockClient observer) throws Exception {
        assertThat(within10s(nested::fairThenPlain)).isEqualTo("plain ran");
        assertThat(observer.getFairLock("nest:fair").isLocked()).isFalse();
    }

    @Test
    void aWriteInsideAReadFailsAtOnceNamingTheMethodTheLockAndBothKinds(LockClient observer) {
        assertThatThrownBy(() -> within10s(() -> {
            nested.readThenWrite();
            return null;
        }))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("@DistributedLocked on Nested.writeInside()")
                .hasMessageContaining("lock 'nest:up' is held as READ by this thread's call of Nested.readThenWrite()")
                .hasMessageContaining("a WRITE acquisition would wait for that hold forever")
                .hasMessageContaining("The method did not run");
        assertThat(nested.innerRuns()).isZero();
        assertThat(observer.inspect("nest:up").type()).as("the outer hold released").isEqualTo(LockInfo.Type.NONE);
    }

    @Test
    void aPlainCallInsideAWriteFailsAtOnce(LockClient observer) {
        assertThatThrownBy(() -> within10s(() -> {
            nested.writeThenPlain();
            return null;
        }))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("@DistributedLocked on Nested.plainInMixed()")
                .hasMessageContaining("lock 'nest:mixed' is held as WRITE")
                .hasMessageContaining("a PLAIN lock of that name is another kind of lock on the same Redis key");
        assertThat(nested.innerRuns()).isZero();
        assertThat(observer.inspect("nest:mixed").type()).isEqualTo(LockInfo.Type.NONE);
    }
}
