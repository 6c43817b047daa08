/**
 * Leader election on the fenced lock ({@link io.dlock.internal.election.FencedLeaderElection}): a loop thread per
 * candidate competes, renews and steps down; a term ({@code ElectedTerm}) is valid by the clock alone. The candidate's
 * lock is the fenced lock with a leader record ({@link io.dlock.internal.lock.ElectionLock}); who leads is read by
 * {@link io.dlock.internal.election.LeaderReader} and observed by {@link io.dlock.internal.election.LeaderObservers}.
 * Wire: docs/protocol.md §14.
 */
package io.dlock.internal.election;
