package io.dlock.internal.latch;

import io.dlock.internal.Errors;
import io.dlock.internal.transport.ServerRuns;
import io.dlock.internal.wakeup.WakeupHub;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The awaiters of one latch in one client ({@link LatchAwait}s), which share every check of the latch's state, its
 * channel subscription and its sleep: K awaiters cost what one does, plus one check per burst of joins. It drives; the
 * latch's {@link LatchProtocol} says what to send and how to read it. The why of each rule: docs/protocol.md §11.3.
 *
 * <p>Rules:
 * <ol>
 *   <li><b>When to check.</b> On the first join (for a latch last known closed, once the subscription that join makes
 *       is confirmed: {@link #add}), a join with no check to ride, a message or a pub/sub reconnect, the bounded
 *       re-check, the end of an outage pause. At most one check in flight; events meanwhile make one more due
 *       ({@link CheckRounds}).</li>
 *   <li><b>Whom an answer holds for.</b> The members that joined before its check was sent. Open: they return
 *       {@code true}. Closed: a timed member out of time returns {@code false}. Failed:
 *       {@link LatchAwait#checkFailed}.</li>
 *   <li><b>Closed before subscribed settles nobody.</b> The group subscribes and checks again once Redis confirms;
 *       joiners meanwhile ride that check.</li>
 *   <li><b>Sleep.</b> Until a message or the shortest of the re-check ({@link LatchParts#recheckMs}), the TTL + 1 ms
 *       and a timed member's time left; a join while asleep checks at once and makes the sleep stale.</li>
 *   <li><b>A "0" releases without a check</b> the members a confirmed flush point witnessed ({@link FlushMarks}), only
 *       where pub/sub and scripts share one server ({@link WakeupHub#sameServerAsScripts}).</li>
 *   <li><b>Announce an unheard opening.</b> Open after a closed read with no message since: {@code latch_opened},
 *       once Redis delivered every message it published before the answer ({@link #announceUnlessHeard}); not when
 *       the closed read came before the subscription and saw no TTL (its opening's "0" reached those listening).</li>
 *   <li><b>Lost is not opened.</b> A missing key on another server run than the one the member last knew the latch on
 *       fails the member with {@link io.dlock.LockLostException} ({@link ServerRuns}; {@link LatchAwait#found}), and
 *       nothing is announced; a "0" heard since the last closed read makes an open answer an opening on any run.</li>
 *   <li><b>Life and locks.</b> Created at the first join, dropped with its subscription when the last member leaves
 *       ({@link LatchGroups}); a dropped group ignores late answers. Its lock is taken inside the groups' map lock and
 *       never held while sending a check or completing a member; its {@code SUBSCRIBE}s (never blocking) are issued
 *       under it, so none is sent after its {@code UNSUBSCRIBE}.</li>
 * </ol>
 */
final class LatchGroup {
    private final LatchParts parts;
    private final LatchProtocol latch;
    private final CheckRounds<LatchAwait> rounds = new CheckRounds<>();
    private final FlushMarks<LatchAwait> flushes = new FlushMarks<>();
    /**
     * A heard "0" releases the members a flush point witnessed ({@link FlushMarks}): the pub/sub connection is to the
     * server that runs the scripts ({@link WakeupHub#sameServerAsScripts}).
     */
    private final boolean zeroReleases;
    /** Joined at the first closed answer (an open latch costs no subscription); dropped by {@link #release}. */
    private WakeupHub.Subscription subscription;
    /** A check is due as soon as Redis confirms the subscription: joiners meanwhile ride it. */
    private boolean awaitingReady;
    /** The sleep under way, or null; the end of any other sleep is ignored. */
    private CompletableFuture<Boolean> sleep;
    /**
     * An answer found the latch closed; {@link #messageSinceClosed}: a message woke the group's current sleep since
     * the last (a "0" that woke only a sleep a join had made stale counts in {@link #zeroSinceClosed()} instead).
     */
    private boolean sawClosed;
    private boolean messageSinceClosed;
    /** The run id known before the check that last read the latch closed ({@link ServerRuns#current}, asked before it was sent), or null. */
    private String closedRun;
    /**
     * An opening found after the last closed answer may have published nothing anybody heard: that answer read a TTL
     * (the latch may expire, the one opening nobody publishes), or its check was sent while the group was subscribed
     * (a "0" since would have reached it: none did, so the latch opened without one, a DEL behind everybody's back).
     * False for a closed answer from before the subscription of a latch without a TTL: the opening since may have
     * published its "0" before the group listened, as subscribed awaiters (Redisson's too) heard it.
     */
    private boolean closedOpeningUnheard;
    /** The "0"s heard in the group's life; a check records the number at its sending. */
    private long zerosHeard;
    /** {@link #zerosHeard} when the check that last read the latch closed was sent; 0 before such a read. */
    private long zerosAtClosedRead;
    private long outagePauseMs;
    private boolean dropped;

    LatchGroup(LatchParts parts, LatchProtocol latch) {
        this.parts = parts;
        this.latch = latch;
        this.zeroReleases = parts.wakeups().sameServerAsScripts();
    }

    /** {@link #add}'s answer when the group subscribes first: the caller then runs {@link #checkOnceSubscribed}. */
    static final long SUBSCRIBING_FIRST = -1;

    /**
     * Adds {@code member}, inside the groups' map lock. The first member of a group whose latch this client last
     * knew closed ({@link LatchProtocol#lastKnownClosed}), and that waits long ({@link LatchAwait#waitsLong}),
     * subscribes first and sends no check until Redis confirms: a check sent before would most likely read the latch
     * closed, which settles nobody before the subscription is confirmed (a count-down between the two would have
     * published to nobody here), so it would have to be repeated. One round trip and one check fewer on the way to sleeping; the hint wrong (the latch opened
     * since), the await costs a SUBSCRIBE and an UNSUBSCRIBE more.
     *
     * @return the number of a check the caller sends with {@link #send} once out of the map lock, 0 when the member
     *         rides a check still to be sent, or {@link #SUBSCRIBING_FIRST}
     */
    synchronized long add(LatchAwait member) {
        boolean first = rounds.isEmpty() && subscription == null && !rounds.isInFlight();
        rounds.join(member);
        flushes.join(member);
        if (awaitingReady) {
            return 0; // the check sent once the subscription is confirmed answers for it
        }
        if (first && latch.lastKnownClosed() && member.waitsLong()) {
            awaitingReady = true;
            join();
            return SUBSCRIBING_FIRST;
        }
        sleep = null;
        return rounds.request();
    }

    /** After {@link #add} answered {@link #SUBSCRIBING_FIRST}, out of the map lock: checks once Redis confirms. */
    void checkOnceSubscribed() {
        CompletableFuture<Void> ready;
        synchronized (this) {
            if (dropped || subscription == null) {
                return;
            }
            ready = subscription.ready();
        }
        ready.whenComplete((ok, error) -> subscribed());
    }

    /**
     * Removes {@code member}, inside the groups' map lock.
     *
     * @return whether the group is empty now, and dropped: the caller removes it from the map, then {@link #release}s
     */
    synchronized boolean remove(LatchAwait member) {
        rounds.leave(member);
        flushes.leave(member);
        if (!rounds.isEmpty()) {
            return false;
        }
        dropped = true;
        sleep = null;
        return true;
    }

    /**
     * A "0" was heard on the latch's channel (on Lettuce's thread, before the wake-up it causes): an opening was
     * published since the last closed check was sent, or about then; an open answer is then an opening even on
     * another run of the server (a failover to a replica that had the latch, counted down there), not a loss. The
     * members a confirmed flush point witnessed return {@code true} now, without a check ({@link FlushMarks}).
     */
    void zeroHeard() {
        List<LatchAwait> released;
        synchronized (this) {
            zerosHeard++;
            released = zeroReleases && !dropped ? flushes.witnessed() : List.of();
        }
        // published after they joined (FlushMarks): the latch opened while they waited, whatever a check reads now
        released.forEach(LatchAwait::heardOpening);
    }

    /** Redis answered flush point {@code number} (on Lettuce's thread, before any message that came after it). */
    private synchronized void flushed(long number) {
        flushes.confirmed(number);
    }

    /** Records that flush point {@code number} is answered once {@code sent}, its {@code SUBSCRIBE}, completes. */
    private void confirmOn(CompletableFuture<Void> sent, long number) {
        sent.whenComplete((ok, error) -> {
            if (error == null) {
                flushed(number);
            }
        });
    }

    private synchronized boolean zeroHeardSinceClosed() {
        return zeroSinceClosed();
    }

    /**
     * Guarded by this. A "0" was heard on the channel since the check that last read the latch closed was sent (or,
     * before such a read, at all): an opening was published, whatever the run. Counted from the sending, not the
     * answer: the "0" and the answer come on two connections, and a "0" handled just before the closed answer is, but
     * for a stale one (an opening and a new count both within that check's flight), the opening after the closed
     * read, which needs no announcement.
     */
    private boolean zeroSinceClosed() {
        return zerosHeard > zerosAtClosedRead;
    }

    /** Drops the subscription of a dropped group (outside the map lock). */
    void release() {
        WakeupHub.Subscription joined;
        synchronized (this) {
            joined = subscription;
            subscription = null;
        }
        if (joined != null) {
            joined.close();
        }
    }

    /**
     * Sends check {@code number}, which {@link CheckRounds#request} handed out; never under a lock. The check reads the
     * server's run id before it ({@link ServerRuns#current}), the latch's state, and, when it finds the latch open, the
     * run id after it (the same call, once the state is in). A check whose state read fails still carries the run id
     * before it: the run on which its members were waiting.
     */
    void send(long number) {
        boolean subscribed;
        long zerosBefore;
        synchronized (this) {
            if (dropped) {
                return;
            }
            subscribed = subscription != null && subscription.ready().isDone();
            zerosBefore = zerosHeard;
            if (zeroReleases && subscription != null && flushes.isDue()) {
                // members joined since the last flush point: one sent beside the check witnesses them. Sent under
                // this lock, as join()'s SUBSCRIBE: no member joins between its number and its sending, and the
                // group's UNSUBSCRIBE (release, which takes the subscription under this lock) cannot overtake it
                confirmOn(subscription.flush(), flushes.sending());
            }
        }
        String name = latch.name();
        // the run id after the read is asked for every open answer but one that a "0" heard explains (an opening
        // publishes one: then it is an opening on any run); asking costs a round trip only after a connection changed
        parts.runs().current(name).thenCompose(before -> latch.state().thenCompose(state ->
                        !state.isOpen() || zeroHeardSinceClosed()
                                ? CompletableFuture.completedFuture(new Check(before, state, null, null))
                                : parts.runs().current(name).thenApply(after -> new Check(before, state, after, null)))
                        .exceptionally(error -> new Check(before, null, null, error)))
                .whenComplete((check, error) -> answered(number, subscribed, zerosBefore, check,
                        error != null ? error : check.error()));
    }

    /**
     * One check's answer.
     *
     * @param before the run id known before it was sent: the state was read on that run or a later one
     * @param state  the latch's state, or null when the read failed
     * @param after  for an open latch with no "0" heard: the run id after the read, else null
     * @param error  why the read failed, or null
     */
    private record Check(String before, LatchProtocol.State state, String after, Throwable error) {
    }

    /**
     * @param subscribed  whether Redis had confirmed the subscription when the check was sent
     * @param zerosBefore {@link #zerosHeard} when the check was sent
     */
    private void answered(long number, boolean subscribed, long zerosBefore, Check check, Throwable error) {
        String before = check == null ? null : check.before();
        boolean open = error == null && check.state().isOpen();
        WakeupHub.Subscription announcer = null;
        boolean opened = false;
        List<LatchAwait> answeredFor;
        synchronized (this) {
            if (dropped) {
                return;
            }
            answeredFor = rounds.answered(number);
            if (error == null) {
                outagePauseMs = 0;
                if (open) {
                    latch.learned(false);
                    // gone after a restart or failover is no opening: nothing to announce, and nothing read closed
                    opened = zeroSinceClosed();
                    boolean lost = !opened && (ServerRuns.changed(closedRun, check.after())
                            || ServerRuns.changed(check.before(), check.after()));
                    // a "0" heard since the closed answer was the opening's own message, also when it woke only a
                    // sleep that a join had made stale (messageSinceClosed missed it then): nothing to announce
                    boolean announce = sawClosed && !messageSinceClosed && !opened && !lost
                            && closedOpeningUnheard;
                    if (announce) {
                        // under the lock that zeroHeard takes: a "0" not heard by now is counted by the announcer
                        announcer = parts.wakeups().join(latch.channel(), true);
                    }
                    if (lost) {
                        sawClosed = false;
                        closedRun = null;
                    }
                } else {
                    latch.learned(true);
                    sawClosed = true;
                    messageSinceClosed = false;
                    closedRun = check.before();
                    zerosAtClosedRead = zerosBefore;
                    closedOpeningUnheard = subscribed || check.state().pttl() > 0;
                }
            }
        }
        if (error != null) {
            boolean passes = Errors.isUnavailable(error) && !parts.acquisitions().isClosed();
            answeredFor.forEach(member -> member.checkFailed(before, error, passes));
        } else if (open) {
            if (announcer != null) {
                announceUnlessHeard(announcer);
            }
            String after = opened ? null : check.after(); // a "0" heard: opened, on whichever run
            answeredFor.forEach(member -> member.found(before, after));
        } else {
            long now = parts.nanoTime();
            answeredFor.forEach(member -> member.stillClosed(now, check.before()));
        }
        next(error != null, open, subscribed, error == null ? check.state().pttl() : 0);
    }

    /**
     * Announces the opening ({@code latch_opened}) unless a message on the latch's channel turns out to have come after
     * the answer that found it open: the count-down's own "0" and that answer come on two connections, in either
     * order, so the announcer first waits until Redis has delivered every message it published before
     * ({@link WakeupHub.Subscription#heardAfterFlush}). Without that, a count-down racing a join was published twice.
     * The announcer's own membership of the channel keeps it subscribed meanwhile, whether or not the group is dropped.
     */
    private void announceUnlessHeard(WakeupHub.Subscription announcer) {
        announcer.heardAfterFlush().whenComplete((heard, error) -> {
            announcer.close();
            if (!Boolean.TRUE.equals(heard)) {
                latch.announceOpened();
            }
        });
    }

    /**
     * After an answer, once its members were told: the next check, the wait for the subscription, or a sleep.
     *
     * @param ttlMs the latch's remaining TTL the answer read (0 after a failure)
     */
    private void next(boolean failed, boolean open, boolean subscribed, long ttlMs) {
        long check = 0;
        CompletableFuture<Void> ready = null;
        CompletableFuture<Boolean> slept = null;
        synchronized (this) {
            if (dropped || rounds.isInFlight() || rounds.isEmpty()) {
                return; // gone, or another event sent a check already: its answer decides
            }
            // a closed answer from a check sent before the subscription was confirmed settles nobody
            boolean settles = failed || open || subscribed;
            if (!settles && !isReady()) {
                if (awaitingReady) {
                    return;
                }
                awaitingReady = true;
                ready = join().ready();
            } else if (awaitingReady && !rounds.isDue()) {
                return; // the check sent once the subscription is confirmed answers for everybody left
            } else if (!settles || open || rounds.isDue()) {
                // subscribed by now; or members left after an open answer (they joined after its check was sent,
                // which made a check due); or a join or message came while the check was on its way
                check = rounds.request();
            } else if (failed) {
                outagePauseMs = io.dlock.internal.acquire.Outage.nextBackoff(outagePauseMs);
                slept = sleep = join().sleep(outagePauseMs);
            } else {
                slept = sleep = join().sleep(sleepMs(ttlMs));
            }
        }
        if (ready != null) {
            ready.whenComplete((ok, error) -> subscribed());
        } else if (check > 0) {
            send(check);
        } else if (slept != null) {
            CompletableFuture<Boolean> mine = slept;
            mine.whenComplete((woken, error) -> woke(mine, Boolean.TRUE.equals(woken)));
        }
    }

    /** Redis confirmed the subscription (or refused it: the bounded re-check then stands in for messages). */
    private void subscribed() {
        long check;
        synchronized (this) {
            if (dropped) {
                return;
            }
            awaitingReady = false;
            sleep = null;
            check = rounds.request();
        }
        if (check > 0) {
            send(check);
        }
    }

    private void woke(CompletableFuture<Boolean> which, boolean byMessage) {
        long check;
        synchronized (this) {
            if (dropped || which != sleep) {
                return; // stale: a join sent a check since, whose answer armed another sleep or will
            }
            sleep = null;
            if (byMessage) {
                messageSinceClosed = true;
            }
            check = rounds.request();
        }
        if (check > 0) {
            send(check);
        }
    }

    /** Guarded by this. @return the bounded re-check: the shortest of the re-check, TTL + 1 ms, a member's time left */
    private long sleepMs(long ttlMs) {
        long ms = parts.recheckMs();
        if (ttlMs > 0) {
            ms = Math.min(ms, ttlMs + 1);
        }
        long now = parts.nanoTime();
        for (LatchAwait member : rounds.members()) {
            ms = Math.min(ms, member.leftMs(now));
        }
        return Math.max(0, ms);
    }

    /** Guarded by this. */
    private boolean isReady() {
        return subscription != null && subscription.ready().isDone();
    }

    /** Guarded by this. @return the group's membership of the latch's channel, joined on first use */
    private WakeupHub.Subscription join() {
        if (subscription == null) {
            subscription = parts.wakeups().join(latch.channel(), true);
            if (zeroReleases && subscription.sentSubscribe()) {
                // its SUBSCRIBE was sent just now, after every member so far joined (they join under this lock)
                confirmOn(subscription.ready(), flushes.sending());
            }
        }
        return subscription;
    }
}
