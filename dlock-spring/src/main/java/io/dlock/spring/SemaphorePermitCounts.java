package io.dlock.spring;

import io.dlock.LeasedSemaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Gives each {@link DistributedConcurrencyLimit} semaphore the number of permits its annotation declares, once per
 * name and number in this application instance, before the first acquisition:
 * {@link LeasedSemaphore#trySetPermits(int)} creates it; when it exists with another total (available plus acquired),
 * {@link LeasedSemaphore#setPermits(int)} sets the total (an atomic script that keeps the permits held and counts
 * them) and a warning names both numbers. The total is observed with two reads, so a permit taken or given back
 * between them can make a matching total look different: the only effect is a needless (idempotent) set and its
 * warning. Thread-safe: concurrent first calls may both check, which is harmless.
 *
 * <p>When an acquisition finds no permit, the interceptor asks {@link #restoreIfGone} whether the semaphore is gone
 * from Redis (a restart without persistence, a failover that lost it, a delete) and, if so, sets it up again: a
 * semaphore that does not exist has no permits, and would otherwise refuse every call until this instance restarts.
 */
final class SemaphorePermitCounts {
    private static final Logger log = LoggerFactory.getLogger(DistributedConcurrencyLimit.class);

    /** Per semaphore name, the number of permits this instance last made sure of. */
    private final Map<String, Integer> ensured = new ConcurrentHashMap<>();

    /**
     * @param semaphore   the semaphore a call is about to acquire from
     * @param permits     the number its annotation declares, ≥ 1
     * @param description the method, for the warning
     */
    void ensure(LeasedSemaphore semaphore, int permits, String description) {
        Integer known = ensured.get(semaphore.getName());
        if (known != null && known == permits) {
            return;
        }
        if (!semaphore.trySetPermits(permits)) {
            int acquired = semaphore.acquiredPermits();
            int total = acquired + semaphore.availablePermits();
            if (total != permits) {
                log.warn("@DistributedConcurrencyLimit on {}: semaphore '{}' has {} permits in all ({} taken), the "
                                + "annotation says {}; setting the total to {} (the last instance started decides; "
                                + "methods sharing a name should declare the same number)",
                        description, semaphore.getName(), total, acquired, permits, permits);
                semaphore.setPermits(permits);
            }
        }
        ensured.put(semaphore.getName(), permits);
    }

    /** @return whether {@link #ensure} already made sure of {@code permits} for semaphore {@code name} */
    boolean isEnsured(String name, int permits) {
        Integer known = ensured.get(name);
        return known != null && known == permits;
    }

    /**
     * Sets the semaphore up again with {@code permits} when it does not exist ({@link LeasedSemaphore#trySetPermits},
     * one script call that changes nothing when it exists). If the permit table survived without the count (only the
     * count was deleted), the total is set to {@code permits} counting the permits still held
     * ({@link LeasedSemaphore#setPermits}). Permits held when Redis lost both are gone with them: they are not counted,
     * so until their calls end (each with a {@link io.dlock.LockLostException}, its release finding nothing) up to
     * twice {@code permits} calls may run at once. Logs a warning when it set the semaphore up.
     *
     * @return whether the semaphore was gone (and is now set up again)
     */
    boolean restoreIfGone(LeasedSemaphore semaphore, int permits, String description) {
        if (!semaphore.trySetPermits(permits)) {
            return false;
        }
        int held = semaphore.acquiredPermits();
        if (held > 0) {
            semaphore.setPermits(permits);
        }
        log.warn("@DistributedConcurrencyLimit on {}: semaphore '{}' was gone from Redis (a restart without "
                        + "persistence, a failover that lost it, or a delete); set it up again with {} permits ({} "
                        + "still held were counted). Permits held by calls running when Redis lost it are lost: those "
                        + "calls end with LockLostException, and until they do the limit may be exceeded",
                description, semaphore.getName(), permits, held);
        ensured.put(semaphore.getName(), permits);
        return true;
    }
}
