package io.dlock.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * VT and VTS are registered, skip cleanly on a JVM without virtual threads (CI runs 17), and on one with them run
 * their bodies on virtual threads with the checks passing, here against in-JVM locks (no Redis).
 */
class VirtualThreadScenariosTest {
    private static final boolean HAS_VIRTUAL_THREADS = Runtime.version().feature() >= VirtualThreads.FIRST_RELEASE;

    @Test
    void bothScenariosAreRegisteredOnce() {
        List<String> ids = Scenarios.all().stream().map(Scenario::id).collect(Collectors.toList());
        assertThat(ids).containsOnlyOnce("VT", "VTS");
    }

    @Test
    void belowJdk21TheyAreUnavailableWithTheReason() {
        assumeTrue(!HAS_VIRTUAL_THREADS, "this JVM has virtual threads");
        for (Scenario scenario : VirtualThreadScenarios.all()) {
            assertThat(scenario.unavailable()).contains("JDK 21+").contains(System.getProperty("java.version"));
            assertThatThrownBy(() -> scenario.run(new InJvmLocks(), null, Duration.ofMillis(10)))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
        assertThatThrownBy(() -> VirtualThreads.factory("x")).isInstanceOf(UnsupportedOperationException.class);
        // the other scenarios stay runnable
        assertThat(Scenarios.all().stream().filter(s -> s.unavailable() == null).map(Scenario::id))
                .contains("S1", "S3").doesNotContain("VT", "VTS");
    }

    @Test
    void theFactoryMakesVirtualThreads() throws Exception {
        assumeTrue(HAS_VIRTUAL_THREADS, "this JVM has no virtual threads");
        AtomicReference<Object> virtual = new AtomicReference<>();
        Thread thread = VirtualThreads.factory("probe-").newThread(() -> {
            try {
                virtual.set(Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()));
            } catch (ReflectiveOperationException e) {
                virtual.set(e);
            }
        });
        thread.start();
        thread.join(10_000);
        assertThat(virtual.get()).isEqualTo(Boolean.TRUE);
        assertThat(thread.getName()).isEqualTo("probe-0");
    }

    @Test
    void fromJdk21BothRunWithTheirChecksPassing() throws Exception {
        assumeTrue(HAS_VIRTUAL_THREADS, "this JVM has no virtual threads");
        for (Scenario scenario : VirtualThreadScenarios.all()) {
            assertThat(scenario.unavailable()).isNull();
            Scenario.Outcome outcome = scenario.run(new InJvmLocks(), null, Duration.ofMillis(200));
            assertThat(outcome.check()).as(scenario.id()).isEqualTo("ok");
            assertThat(outcome.load().ops()).as(scenario.id()).isGreaterThan(0);
        }
    }

    /** A "library" of in-JVM locks, one per name: enough for the scenario bodies, which use only lock(name). */
    private static final class InJvmLocks implements Library {
        private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "in-jvm";
        }

        @Override
        public Lock lock(String name) {
            return locks.computeIfAbsent(name, n -> new ReentrantLock());
        }

        @Override
        public Lock fairLock(String name) {
            return locks.computeIfAbsent(name, n -> new ReentrantLock(true));
        }

        @Override
        public ReadWriteLock readWriteLock(String name) {
            return new ReentrantReadWriteLock();
        }

        @Override
        public void close() {
        }
    }
}
