package io.dlock.cli;

import io.dlock.LeaseLostEvent;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The release of a {@link RunHold} when its run ends: waits at most {@link #TIMEOUT} for the library's asynchronous
 * release and says how it went. Nothing here is an error: a hold that is not released expires with its lease.
 */
final class HoldRelease {
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** What the failure of a release means, as each kind of hold reads its library's exceptions. */
    enum Failure {
        /** The hold was no longer ours: its lease had been lost. */
        NOT_OURS,
        /** It was released already: nothing left to do. */
        ALREADY_RELEASED,
        /** It could not be released (Redis unreachable, …). */
        FAILED
    }

    private HoldRelease() {
    }

    /**
     * @param release completes with whether the hold was still ours (false: its lease had been lost)
     * @param failure what a failure of {@code release} (its cause) means
     * @param lost    the loss already reported, if any: then a hold found not ours needs no warning
     */
    static void await(CompletableFuture<Boolean> release, Function<Throwable, Failure> failure, LeaseLostEvent lost,
                      RunMessages messages) {
        try {
            if (release.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                messages.released();
            } else {
                notOurs(lost, messages);
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            switch (failure.apply(cause)) {
                case NOT_OURS -> notOurs(lost, messages);
                case ALREADY_RELEASED -> {
                }
                default -> messages.releaseFailed(cause.getMessage());
            }
        } catch (TimeoutException e) {
            messages.releaseTimedOut(TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            messages.releaseInterrupted();
        }
    }

    private static void notOurs(LeaseLostEvent lost, RunMessages messages) {
        if (lost == null) {
            messages.notHeldAtRelease();
        }
    }
}
