/**
 * Leader election on the fenced lock ({@link io.dlock.internal.election.FencedLeaderElection}): a loop thread per
 * candidate competes, renews and steps down; a term ({@code ElectedTerm}) is valid by the clock alone. Built on the
 * public {@link io.dlock.FencedLock} API (an owner of the election's own), so it has no keys, scripts or wire of its
 * own: docs/protocol.md, "Leader election".
 */
package io.dlock.internal.election;
