package io.dlock.internal.lock;

import io.dlock.internal.lease.TaskScheduler;

/**
 * What a client knows of its own owners beyond their holds: who waits behind whom on an exclusive lock
 * ({@link LocalCohorts}), the turns of owners that wait for the same plain locks in one script ({@link GroupTurns}),
 * and the timer both use. Immutable; the parts are thread-safe.
 */
record LocalOwners(LocalCohorts cohorts, GroupTurns groupTurns, TaskScheduler timer) {
}
