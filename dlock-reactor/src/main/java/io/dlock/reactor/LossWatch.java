package io.dlock.reactor;

import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import reactor.core.publisher.Mono;

import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The reactive form of the lease-lost callback ({@link LockClient#addLeaseLostListener}): a Mono that fails with
 * {@link LockLostException} when the client reports the loss of one grant, and never completes otherwise. Each
 * subscription adds a listener to the client and removes it when cancelled or failed, so a watch costs nothing once
 * the work it guards has ended. {@link Holding} subscribes to it while the work runs. Stateless, thread-safe.
 *
 * <p>The client reports a loss on its executor, never on a Redis I/O thread, when it learns of it: at a watchdog
 * renewal that finds the hold gone (another client's {@code forceUnlock}, a key deleted, Redis restarted without it),
 * when renewals kept failing until the lease ran out, when a fixed lease ran out before the release, or when the client
 * closes. A loss reported before the watch was subscribed is found by {@code goneAlready}.
 */
final class LossWatch {
    private LossWatch() {
    }

    /**
     * @param client      the client that holds the grant
     * @param isTheGrant  whether a reported loss is the grant's; must not block
     * @param goneAlready whether the grant is known lost already (checked once the listener is in place); must not
     *                    block
     * @param lockName    the lock's (or semaphore's) name, for the exception
     * @param what        the grant, for the message: e.g. {@code lock 'a': the hold of owner -3}
     */
    static Mono<Void> watch(LockClient client, Predicate<LeaseLostEvent> isTheGrant, BooleanSupplier goneAlready,
                            String lockName, String what) {
        return Mono.create(sink -> {
            LeaseLostListener listener = event -> {
                if (isTheGrant.test(event)) {
                    sink.error(lost(lockName, what, event.reason().toString()));
                }
            };
            client.addLeaseLostListener(listener);
            sink.onDispose(() -> client.removeLeaseLostListener(listener));
            if (goneAlready.getAsBoolean()) {
                sink.error(lost(lockName, what, "lost before the work began"));
            }
        });
    }

    private static LockLostException lost(String lockName, String what, String why) {
        return new LockLostException(lockName, what + " was lost while the work ran (" + why
                + "); the work was cancelled");
    }
}
