package io.dlock.reactor;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * BlockHound for the reactive tests, as a JUnit extension ({@code @ExtendWith(NoBlocking.class)}): a blocking call on a
 * thread that must never block fails the call with {@code BlockingOperationError}, which the StepVerifiers of the
 * tests may see as an error. Each one is also <b>collected</b>, since an error thrown deep inside a library callback or
 * on a Redis I/O thread may never reach a test, and after each test the extension fails the test when any was
 * collected during it ({@link #assertNone()}). A test that provokes them on purpose takes them with {@link #drain()}.
 *
 * <p>Threads checked: Reactor's non-blocking schedulers (BlockHound's Reactor integration) and Netty's event loops,
 * that is Lettuce's I/O threads (Netty's integration). The tests subscribe on, and move signals to,
 * {@code Schedulers.parallel()}, so the methods of {@code io.dlock.reactor} they call, releases included, run on a
 * checked thread. The client's executor ({@code dlock-callback-*}), where signals are first emitted, is not checked:
 * the core's contract lets the callbacks it runs there ({@code LeaseLostListener}s, user futures) block.
 *
 * <p>The client timer (dlock-core's {@code NonBlockingTimer}) needs no allowance: a pub/sub message cancels a
 * waiter's sleep on an I/O thread without a lock. Earlier, a {@code ScheduledThreadPoolExecutor} parked there.
 *
 * <p>Allowances, each a short wait for a lock that is only held for a few instructions, never I/O or a sleep:
 * <ul>
 *   <li>a pool thread waiting for its next task ({@code ThreadPoolExecutor.getTask}: idle, not blocked; Redisson's
 *       Netty-made threads wait there);</li>
 *   <li>{@code ThreadPoolExecutor.addWorker}, the pool's bookkeeping lock (a thread added to a set; the thread is
 *       started outside it), passed when a reply on an I/O thread hands a callback to the client's executor and the
 *       pool adds a worker: it parked there once in a CI run, while another thread added one too;</li>
 *   <li>Lettuce's {@code SharedLock.incrementWriters}, which every command write passes through: it parks briefly
 *       while another thread holds the connection's exclusive writer lock; Lettuce's own wait, for every user;</li>
 *   <li>Redisson's {@code WrappedLock.execute}, a {@code ReentrantLock} around a few list operations (its table of
 *       futures in flight), which its pub/sub threads pass through when a lock message wakes an {@code RLock} waiter
 *       ({@code ReactiveExclusionStressIT}: the error broke Redisson's waiter, which then never acquired).</li>
 * </ul>
 */
final class NoBlocking implements BeforeAllCallback, AfterEachCallback {
    /** The blocking calls seen since the last {@link #drain()}, on whatever thread. */
    private static final Queue<BlockingOperationError> SEEN = new ConcurrentLinkedQueue<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        assertNone();
    }

    /**
     * Installs the check once per JVM; later calls do nothing. It must come before the JVM first uses Reactor's
     * schedulers, or errors thrown on their workers escape the operators (seen when a class without it ran first):
     * the extension installs it before the test class's own {@code @BeforeAll} methods.
     */
    static void install() {
        BlockHound.install(builder -> builder
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "getTask")
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "addWorker")
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
                .allowBlockingCallsInside("org.redisson.misc.WrappedLock", "execute")
                // Netty's adaptive allocator takes a short lock of its own when it grows its pools (seen once on a
                // reconnect's channelRegistered under load): Netty's internal bookkeeping, not a wait for another party
                .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup",
                        "tryExpandMagazines")
                .blockingMethodCallback(method -> {
                    BlockingOperationError error = new BlockingOperationError(method);
                    error.addSuppressed(new IllegalStateException("on thread " + Thread.currentThread().getName()));
                    SEEN.add(error);
                    throw error;
                }));
    }

    /** @return the blocking calls seen since the last drain, oldest first; forgets them */
    static List<BlockingOperationError> drain() {
        List<BlockingOperationError> seen = new ArrayList<>();
        for (BlockingOperationError error = SEEN.poll(); error != null; error = SEEN.poll()) {
            seen.add(error);
        }
        return seen;
    }

    /** @throws AssertionError when a blocking call was seen since the last drain, with each one as suppressed */
    static void assertNone() {
        List<BlockingOperationError> seen = drain();
        if (!seen.isEmpty()) {
            AssertionError failure = new AssertionError(seen.size() + " blocking call(s) on threads that must never "
                    + "block, the first: " + seen.get(0).getMessage());
            seen.forEach(failure::addSuppressed);
            throw failure;
        }
    }
}
