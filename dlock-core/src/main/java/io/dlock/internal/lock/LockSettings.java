package io.dlock.internal.lock;

/**
 * The settings every lock of one client reads: who the client is and the few numbers of its configuration the lock
 * kinds use. Immutable.
 *
 * @param clientId         the client's id, the first part of every owner field ({@code <client id>:<owner id>})
 * @param watchdogMs       the watchdog timeout: the lease of a hold taken without one, renewed every third of it
 * @param fairLockWaitMs   a fair-lock waiter's slot when the caller gives no wait time
 * @param publishCommand   the scripts' publish command: {@code "publish"}, {@code "spublish"} or {@code "both"}
 * @param maxLocalHandoffs the most hand-offs of an exclusive lock between this client's owners in a row (0: none)
 * @param holdDetails      whether plain locks write their hold record ({@link io.dlock.LockClientConfig.Builder#holdDetails})
 */
public record LockSettings(String clientId, long watchdogMs, long fairLockWaitMs, String publishCommand,
                           int maxLocalHandoffs, boolean holdDetails) {
}
