package io.dlock.internal.lease;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Sends one batched renewal to Redis. */
@FunctionalInterface
public interface RenewalSender {

    /**
     * Resets the TTL of every hold in {@code holds} whose owner field still exists to {@code leaseMs}.
     *
     * @return for each hold, in order, whether it still existed; a failed future when Redis failed
     */
    CompletableFuture<List<Boolean>> renew(List<Hold> holds, long leaseMs);
}
