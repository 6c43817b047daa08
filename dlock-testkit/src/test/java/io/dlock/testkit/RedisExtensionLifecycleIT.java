package io.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import io.dlock.redisprocess.RedisServer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** Runs a sample test class through the JUnit launcher to see what the extension does around it. */
class RedisExtensionLifecycleIT {

    private static final String ENABLE = "dlock.testkit.sample";

    private static volatile RedisServer seen;

    /** Only run from {@link #serverIsClosedAfterTheClassAndItsLogIsPrintedOnFailure()}. */
    @ExtendWith(RedisExtension.class)
    @EnabledIfSystemProperty(named = ENABLE, matches = "true")
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class Sample {
        @Test
        @Order(1)
        void passes(RedisServer server) {
            seen = server;
            assertThat(server.isRunning()).isTrue();
        }

        @Test
        @Order(2)
        void fails(RedisServer server) {
            throw new AssertionError("deliberate failure");
        }
    }

    @Test
    void serverIsClosedAfterTheClassAndItsLogIsPrintedOnFailure() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        System.setProperty(ENABLE, "true");
        System.setErr(new PrintStream(new Tee(originalErr, err), true, StandardCharsets.UTF_8));
        try {
            LauncherFactory.create().execute(
                    LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Sample.class)).build(), listener);
        } finally {
            System.setErr(originalErr);
            System.clearProperty(ENABLE);
        }

        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(1);
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        assertThat(summary.getFailures().get(0).getException()).hasMessage("deliberate failure");

        assertThat(seen).isNotNull();
        assertThat(seen.isRunning()).isFalse();
        assertThat(seen.log()).isEmpty(); // closed: its directory is gone
        String printed = err.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("fails(RedisServer) failed").contains(seen.uri())
                .contains("Ready to accept connections").contains("end of redis-server log");
    }

    /** Writes to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) {
            write(new byte[] {(byte) c}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) {
            try {
                a.write(buf, off, len);
                b.write(buf, off, len);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
