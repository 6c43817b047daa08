package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.AcquireSteps;
import io.dlock.internal.acquire.Admission;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.Subject;
import io.dlock.internal.acquire.WakeMode;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Plain locks of one client whose names share one hash slot, taken by one owner all at once or not at all: every
 * attempt is one script ({@code lock_acquire_all.lua}, docs/protocol.md §12), so no owner ever holds part of the
 * group while it waits for the rest. The holds it makes are the members' own: recorded, renewed, released, handed off
 * and reported lost exactly like holds taken through each member, so the group only acquires.
 *
 * <p>Everything else about the acquisition is the one {@link AcquireLoop}: a busy attempt sleeps at most the PTTL of
 * the member found held, and an unlock message on any member's channel wakes it ({@link
 * io.dlock.internal.wakeup.WakeupHub#joinAll}); the lost-reply rule covers every member at once
 * ({@link io.dlock.internal.acquire.PendingAcquisitions#trackAll}); giving up drops what an unanswered attempt may have left on each member.
 *
 * <p>Not used, so the members are taken one after another, when a member is of another kind (its acquisition is a
 * different script), the names span slots (one script cannot reach them in a Cluster), or the client confirms
 * acquisitions on replicas. Immutable and thread-safe.
 */
public final class PlainLockGroup {
    private final LockServices services;
    /** The multi-lock's name, for errors. */
    private final String name;
    private final List<RedisLock> members;
    private final String[] keys;
    private final List<String> channels;
    /** The line of this client's owners acquiring these members ({@link GroupTurns}): their names in order. */
    private final String line;

    private PlainLockGroup(LockServices services, String name, List<RedisLock> members) {
        this.services = services;
        this.name = name;
        this.members = List.copyOf(members);
        this.keys = members.stream().map(m -> m.name).toArray(String[]::new);
        this.channels = members.stream().map(m -> m.protocol.wakeupChannel(0)).toList();
        this.line = String.join("\n", keys);
    }

    /**
     * @param name  names the multi-lock in errors
     * @param locks the members in the multi-lock's order, lock objects of one client
     * @return the group, or null when they cannot be taken in one script (see the class comment), or there are fewer
     *         than two
     */
    public static PlainLockGroup of(String name, List<? extends DistributedLock> locks) {
        if (locks.size() < 2) {
            return null;
        }
        List<RedisLock> cores = new ArrayList<>(locks.size());
        for (DistributedLock lock : locks) {
            if (!(lock instanceof LockApi api) || api.core().protocol.context().kind() != LockKind.PLAIN) {
                return null;
            }
            RedisLock core = api.core();
            if (!cores.isEmpty() && (core.services != cores.get(0).services
                    || SlotHash.getSlot(core.name) != SlotHash.getSlot(cores.get(0).name))) {
                return null;
            }
            cores.add(core);
        }
        LockServices services = cores.get(0).services;
        return services.redis().replicaSync().enabled() ? null : new PlainLockGroup(services, name, cores);
    }

    /**
     * Takes every member for {@code ownerId}, blocking.
     *
     * @param waitNanos     0 for one attempt, {@link DistributedLock#WAIT_FOREVER}, or the longest wait in ns
     * @param leaseMs       the lease, or {@link DistributedLock#LEASE_WATCHDOG}
     * @param interruptible whether an interrupt abandons the wait ({@link InterruptedException}); otherwise it is
     *                      kept for after it
     * @return whether every member is now held (false only when out of time)
     */
    public boolean acquire(long waitNanos, long leaseMs, long ownerId, boolean interruptible)
            throws InterruptedException {
        if (!interruptible) {
            return services.acquisitions().waits().awaitUninterruptibly(start(waitNanos, leaseMs, ownerId).result);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException(name + ": interrupted before acquiring");
        }
        Turn turn = start(waitNanos, leaseMs, ownerId);
        return services.acquisitions().waits().awaitOrAbandon(turn.result, turn::abandon);
    }

    /**
     * Takes every member for {@code ownerId}, without blocking: the future completes on the client's executor with
     * {@code map} of whether every member is held (the caller's own value, mapped before the hand-over: see
     * {@link Callers#toCaller}); cancelling it abandons the acquisition.
     */
    public <T> CompletableFuture<T> acquireAsync(long waitNanos, long leaseMs, long ownerId,
                                                 Function<Boolean, T> map) {
        try {
            Turn turn = start(waitNanos, leaseMs, ownerId);
            return Callers.toCaller(services.acquisitions().executor(), turn::abandon,
                    cleanup -> trackCleanup(ownerId, cleanup), turn.result.thenApply(map), Errors::unwrap);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private Turn start(long waitNanos, long leaseMs, long ownerId) {
        Admission admission = services.acquisitions().begin(Subject.lockGroup(name,
                members.stream().map(m -> m.name).toList(), ownerId), waitNanos);
        return new Turn(admission, waitNanos == 0, leaseMs, ownerId);
    }

    /**
     * One acquisition of the group: it waits for its turn among this client's owners acquiring the same members
     * ({@link GroupTurns}), then runs the one {@link AcquireLoop}, whose end (acquired or not) gives the turn to the
     * next. A single attempt does not wait for a turn, nor does an owner that holds a member already: its re-entry
     * must never queue behind owners that wait for what it holds (they would wait for ever, and it for them). Given up before its turn came (deadline, interrupt, cancellation), it leaves the
     * line having sent nothing.
     */
    private final class Turn {
        final CompletableFuture<Boolean> result = new CompletableFuture<>();
        private final Admission admission;
        private final long deadline;
        private final boolean singleAttempt;
        private final long leaseMs;
        private final long ownerId;
        private final CompletableFuture<Void> place;
        /** Whether this acquisition took a place in the line (not a single attempt, nor a holder's re-entry). */
        private final boolean inLine;
        /** Guarded by this: the loop once the turn came; whether the acquisition ended before. */
        private AcquireLoop loop;
        private boolean endedInLine;
        private volatile Runnable cancelTimer = () -> { };

        Turn(Admission admission, boolean singleAttempt, long leaseMs, long ownerId) {
            this.admission = admission.endsWith(result);
            this.deadline = admission.deadline();
            this.singleAttempt = singleAttempt;
            this.leaseMs = leaseMs;
            this.ownerId = ownerId;
            // a holder of a member never queues: the owners in line may be waiting for what it holds
            this.inLine = !singleAttempt && !holdsAnyMember(ownerId);
            this.place = inLine ? services.local().groupTurns().enter(line, channels) : CompletableFuture.completedFuture(null);
            if (!place.isDone() && deadline != AcquireLoop.NO_DEADLINE) {
                cancelTimer = services.local().timer().schedule(() -> endInLine(false),
                        Math.max(0, deadline - services.clock().nanoTime()));
            }
            place.thenRun(this::begin);
        }

        private void begin() {
            AcquireLoop started;
            synchronized (this) {
                if (endedInLine) {
                    return;
                }
                try {
                    loop = newLoop(admission, singleAttempt, leaseMs, ownerId);
                } catch (RuntimeException e) {
                    endedInLine = true;
                    leaveLine();
                    result.completeExceptionally(e);
                    return;
                }
                started = loop;
            }
            cancelTimer.run();
            started.result().whenComplete((acquired, error) -> {
                leaveLine();
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(acquired);
                }
            });
            startAfterCleanups(0, ownerId, started);
        }

        /** Ends the acquisition before its turn came: {@code false} at the deadline; nothing was sent. */
        private void endInLine(boolean cancelled) {
            synchronized (this) {
                if (loop != null || endedInLine) {
                    return;
                }
                endedInLine = true;
            }
            leaveLine();
            if (cancelled) {
                result.cancel(false);
            } else {
                result.complete(false);
            }
        }

        /** Gives up: in line, leaves it; with its turn, abandons the loop (which gives back a late acquisition). */
        CompletableFuture<Void> abandon() {
            AcquireLoop running;
            synchronized (this) {
                running = loop;
            }
            if (running == null) {
                endInLine(true);
                synchronized (this) {
                    running = loop;
                }
                if (running == null) {
                    return CompletableFuture.completedFuture(null);
                }
            }
            return running.abandon();
        }

        private void leaveLine() {
            if (inLine) {
                services.local().groupTurns().leave(line, place);
            }
        }
    }

    /** @return whether this client knows {@code ownerId} to hold any member (a re-entry, for every member it holds) */
    private boolean holdsAnyMember(long ownerId) {
        for (RedisLock member : members) {
            if (member.hold(ownerId) != null) {
                return true;
            }
        }
        return false;
    }

    /** The one loop of an acquisition whose turn came, let in for close by its {@code admission}. */
    private AcquireLoop newLoop(Admission admission, boolean singleAttempt, long leaseMs, long ownerId) {
        AcquireSteps steps = new AcquireSteps("lock", name, () -> attempt(ownerId, leaseMs, admission),
                () -> releaseAll(ownerId), () -> giveUp(ownerId), channels, WakeMode.ALL, null,
                cleanup -> trackCleanup(ownerId, cleanup));
        return admission.enter(new AcquireLoop(steps, services.acquisitions().waiting(), admission.deadline(),
                singleAttempt));
    }

    /** Starts {@code loop} once what abandoned acquisitions of the owner left on members {@code from..} is cleaned up. */
    private void startAfterCleanups(int from, long ownerId, AcquireLoop loop) {
        if (from == members.size()) {
            loop.start();
            return;
        }
        services.holds().runAfterCleanups(() -> members.get(from).holdId(ownerId),
                () -> startAfterCleanups(from + 1, ownerId, loop));
    }

    private void trackCleanup(long ownerId, CompletableFuture<?> cleanup) {
        members.forEach(member -> services.holds().trackCleanup(member.holdId(ownerId), cleanup));
    }

    /**
     * One attempt at every member: null when all are held (each grant recorded as the member's own hold), else the
     * PTTL of the member found held.
     */
    private CompletableFuture<Long> attempt(long ownerId, long leaseMs, Admission followed) {
        followed.attempted();
        List<HoldId> ids = members.stream().map(member -> member.holdId(ownerId)).toList();
        String[] held = new String[ids.size()];
        for (int i = 0; i < held.length; i++) {
            held[i] = members.get(i).heldArg(ownerId);
        }
        String lease = Long.toString(members.get(0).protocol.context().effectiveLease(leaseMs));
        long sentAt = services.clock().nanoTime();
        return services.pending().<Long>trackAll(ids, known -> {
            String[] args = new String[2 + 2 * ids.size()];
            args[0] = lease;
            args[1] = ids.get(0).field();
            for (int i = 0; i < ids.size(); i++) {
                args[2 + 2 * i] = Long.toString(known[i]);
                args[3 + 2 * i] = held[i];
            }
            return services.redis().scripts().run(Scripts.LOCK_ACQUIRE_ALL, ScriptOutputType.INTEGER, keys, args);
        }, reply -> {
            if (reply == null) {
                for (int i = 0; i < ids.size(); i++) {
                    Hold hold = members.get(i).recordAttemptGrant(ownerId, leaseMs, sentAt);
                    followed.granted(i, hold);
                }
                return null;
            }
            if (reply <= -1001) {
                int gone = (int) (-reply - 1001);
                throw members.get(gone).holdGone(ids.get(gone));
            }
            return reply;
        });
    }

    /** Gives back every member (an acquisition that completed after its caller gave up); failures are left to leases. */
    private CompletableFuture<?> releaseAll(long ownerId) {
        List<CompletableFuture<?>> releases = new ArrayList<>(members.size());
        for (int i = members.size() - 1; i >= 0; i--) {
            RedisLock member = members.get(i);
            releases.add(Errors.call(() -> member.release(ownerId)).handle((ok, error) -> null));
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture<?>[]::new));
    }

    /** Drops, on every member, what an attempt without a reply may have taken ({@link RedisLock#giveUp}). */
    private CompletableFuture<?> giveUp(long ownerId) {
        return CompletableFuture.allOf(members.stream()
                .map(member -> Errors.call(() -> member.giveUp(ownerId)).handle((ok, error) -> null))
                .toArray(CompletableFuture<?>[]::new));
    }

    /** @return how long a wait of {@code waitMs} is in ns for {@link #acquire}: WAIT_FOREVER and 0 kept */
    public static long waitNanos(long waitMs) {
        return waitMs == DistributedLock.WAIT_FOREVER ? DistributedLock.WAIT_FOREVER
                : TimeUnit.MILLISECONDS.toNanos(waitMs);
    }
}
