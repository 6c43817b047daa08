package io.dlock.internal.semaphore;

import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static io.dlock.LeasedSemaphore.MAX_PERMITS_AT_ONCE;

/**
 * A leased semaphore's releases by permit id ({@code pes_release}, docs/protocol.md §13.2): of one id or of a list,
 * all or none, strict (an id not held is an error naming it) or lenient; this client's own handles of released ids end
 * as if released through them. Also the plain {@code pes_release} the kind's give-backs send. Thread-safe.
 */
final class PermitReleases {
    static final String EACH = "each";
    static final String ALL = "all";
    /** How many ids a refusal's message names at most. */
    private static final int IDS_NAMED = 10;

    private final SemaphoreServices services;
    private final SemaphoreKeys keys;

    PermitReleases(SemaphoreServices services, SemaphoreKeys keys) {
        this.services = services;
        this.keys = keys;
    }

    private String getName() {
        return keys.name();
    }

    /** Releases those of {@code ids} in the table, ignoring the outcome (clean-up of an attempt nobody receives). */
    void giveBack(String... ids) {
        services.acquisitions.track(sendRelease(EACH, ids));
    }

    /** {@code pes_release}; completes with one state per id (see the script). */
    CompletableFuture<List<Long>> sendRelease(String mode, String... ids) {
        return sendRelease(mode, false, ids);
    }

    /** @param byText send the script's text ({@code EVAL}): a give-back after a lost reply must not meet NOSCRIPT */
    CompletableFuture<List<Long>> sendRelease(String mode, boolean byText, String... ids) {
        return sendReleaseTold(mode, byText, ids).thenApply(r -> r.subList(0, r.size() - 1));
    }

    /**
     * {@code pes_release}; completes with one state per id, then how many subscribers the release's message reached
     * (see the script).
     */
    CompletableFuture<List<Long>> sendReleaseTold(String mode, boolean byText, String... ids) {
        String[] args = new String[3 + ids.length];
        args[0] = services.publishCommand;
        args[1] = keys.channel();
        args[2] = mode;
        System.arraycopy(ids, 0, args, 3, ids.length);
        CompletableFuture<List<Object>> reply = byText
                ? services.runByText(SemaphoreScripts.PES_RELEASE, ScriptOutputType.MULTI, keys.both(), args)
                : services.run(SemaphoreScripts.PES_RELEASE, ScriptOutputType.MULTI, keys.both(), args);
        return reply.thenApply(r -> r.stream().map(Long.class::cast).toList());
    }

    /**
     * Sends a release by id, first pausing this client's own handles of those ids (not renewed, no loss reported
     * while it is on its way), and ending them as the reply says: released, failed, or held again (a list refused).
     * So a permit of this client released by id is ended as if released through its handle.
     */
    private CompletableFuture<List<Long>> releaseIds(String mode, String[] ids) {
        List<LeasedPermit> own = services.watchdog.heldWithIds(keys, Set.of(ids));
        own.removeIf(permit -> !permit.releaseByIdStarting());
        own.forEach(services.watchdog::forget);
        if (own.isEmpty()) {
            return sendRelease(mode, ids);
        }
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            index.put(ids[i], i);
        }
        return sendRelease(mode, ids).whenComplete((states, error) -> {
            for (LeasedPermit permit : own) {
                long state = error != null ? 0 : states.get(index.get(permit.id()));
                if (error != null || state == 1L || state == 0L) {
                    services.localPermits.forget(keys.channel(), 1);
                    services.events.get().permitReleased(getName(), permit.id());
                    permit.releaseByIdEnded(error != null ? LeasedPermit.State.RELEASE_FAILED
                            : LeasedPermit.State.RELEASED);
                } else {
                    permit.releaseByIdEnded(LeasedPermit.State.HELD);
                    services.watchdog.held(permit);
                }
            }
        });
    }

    /**
     * @param lenient true: an id not in the table answers false; else IllegalArgumentException
     * @return completes with whether the permit was held with its lease running
     */
    CompletableFuture<Boolean> releaseById(String permitId, boolean lenient) {
        services.checkOpen(LeasedAcquireForms.KIND, getName());
        String id = PermitIds.require(getName(), permitId);
        return releaseIds(EACH, new String[] {id}).thenApply(r -> {
            long state = r.get(0);
            if (state < 0 && !lenient) {
                throw new IllegalArgumentException("semaphore '" + getName() + "': no permit with id " + id
                        + " is held (never acquired, released already, or expired and reclaimed)");
            }
            return state == 1L;
        });
    }

    /**
     * All or none.
     *
     * @param lenient true: a refusal answers false; else IllegalArgumentException naming the ids not held
     * @return completes with true when all were released
     */
    CompletableFuture<Boolean> releaseAll(Collection<String> permitIds, boolean lenient) {
        services.checkOpen(LeasedAcquireForms.KIND, getName());
        Objects.requireNonNull(permitIds, "permitIds");
        if (permitIds.size() > MAX_PERMITS_AT_ONCE) {
            throw new IllegalArgumentException("semaphore '" + getName() + "': at most " + MAX_PERMITS_AT_ONCE
                    + " permit ids at once: " + permitIds.size());
        }
        Set<String> distinct = new LinkedHashSet<>();
        for (String permitId : permitIds) {
            String id = PermitIds.require(getName(), permitId);
            if (!distinct.add(id)) {
                throw new IllegalArgumentException("semaphore '" + getName() + "': permit id " + id
                        + " appears twice in permitIds");
            }
        }
        if (distinct.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        String[] ids = distinct.toArray(new String[0]);
        return releaseIds(ALL, ids).thenApply(states -> {
            if (states.stream().allMatch(state -> state == 1L)) {
                return true;
            }
            if (lenient) {
                return false;
            }
            List<String> missing = new ArrayList<>();
            List<String> ended = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                if (states.get(i) == -1L) {
                    missing.add(ids[i]);
                } else if (states.get(i) == -2L) {
                    ended.add(ids[i]);
                }
            }
            throw new IllegalArgumentException("semaphore '" + getName() + "': none of the " + ids.length
                    + " permits was released, as not all are held"
                    + (missing.isEmpty() ? "" : "; no permit with id " + named(missing)
                            + " (never acquired, released already, or expired and reclaimed)")
                    + (ended.isEmpty() ? "" : "; the lease has ended of " + named(ended)));
        });
    }

    private static String named(List<String> ids) {
        String shown = String.join(", ", ids.subList(0, Math.min(IDS_NAMED, ids.size())));
        return ids.size() > IDS_NAMED ? shown + " and " + (ids.size() - IDS_NAMED) + " more" : shown;
    }
}
