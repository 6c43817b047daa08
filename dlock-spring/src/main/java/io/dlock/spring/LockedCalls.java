package io.dlock.spring;

import io.dlock.LockOwner;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@link DistributedLocked} calls in progress on the calling thread, for a method that needs its own hold: each
 * call holds its lock as an owner of its own (not as its thread), so the lock objects of
 * {@link io.dlock.LockClient} see that hold only through a view for that owner.
 *
 * <pre>{@code
 * @DistributedLocked(name = "ledger:#{#account}", kind = LockKind.FENCED)
 * public void post(String account, Entry entry) {
 *     String name = "ledger:" + account;
 *     long token = client.getFencedLock(name).as(LockedCalls.owner(name).orElseThrow()).getToken();
 *     ledger.write(entry, token);   // the store refuses tokens lower than the highest it has seen
 * }
 * }</pre>
 *
 * <p>Thread-safe; never blocks.
 */
public final class LockedCalls {

    private LockedCalls() {
    }

    /**
     * The owner of the calling thread's {@code @DistributedLocked} call in progress on lock {@code lockName} (for
     * nested calls of one name, the outermost call's owner, which they share). Use it with
     * {@link io.dlock.DistributedLock#as} to read the hold's fencing token, its {@code leaseValidFor()}, or to extend
     * it.
     *
     * @param lockName the lock's name as the call evaluated it
     * @return the owner, or empty when the thread is in no {@code @DistributedLocked} call of that lock
     * @throws NullPointerException when {@code lockName} is null
     */
    public static Optional<LockOwner> owner(String lockName) {
        return Optional.ofNullable(LockedMethodInterceptor.ownerOf(Objects.requireNonNull(lockName, "lockName")));
    }
}
