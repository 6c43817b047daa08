package io.dlock.reactor;

import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * BlockHound for the reactive tests: a blocking call on a thread that must never block fails the call with
 * {@code BlockingOperationError}, which the StepVerifiers of the tests then see as an error. Each one is also printed
 * with its stack, since an error thrown deep inside a library callback may never reach a test.
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
 *   <li>Lettuce's {@code SharedLock.incrementWriters}, which every command write passes through: it parks briefly
 *       while another thread holds the connection's exclusive writer lock; Lettuce's own wait, for every user.</li>
 * </ul>
 */
final class NoBlocking {
    private NoBlocking() {
    }

    /**
     * Installs the check once per JVM; later calls do nothing. Every test class calls it in {@code @BeforeAll}: it
     * must come before the JVM first uses Reactor's schedulers, or errors thrown on their workers escape the
     * operators (seen when a class without it ran first).
     */
    static void install() {
        BlockHound.install(builder -> builder
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "getTask")
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
                .blockingMethodCallback(method -> {
                    BlockingOperationError error = new BlockingOperationError(method);
                    System.err.println("BLOCKING CALL on " + Thread.currentThread().getName() + ": " + method);
                    error.printStackTrace();
                    throw error;
                }));
    }
}
