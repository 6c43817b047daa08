package io.dlock.internal.latch;

import io.dlock.internal.Errors;
import io.dlock.internal.transport.ServerRuns;
import io.dlock.internal.wakeup.WakeupHub;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The awaiters of one latch in one client, which share every check of the latch's state ({@code latch_state}), its
 * channel subscription and its sleep: K awaiters cost what one does, plus one check per burst of joins.
 *
 * <h2>Protocol</h2>
 * <ol>
 *   <li>A check is sent on each event: the first join (or, for a latch this client last knew closed, the
 *       confirmation of the subscription its first join makes: {@link #add}), a join that finds no check to ride, a
 *       wake-up by a message (or after a pub/sub reconnect), the bounded re-check, the end of an outage pause. At
 *       most one is in flight; events meanwhile make one more due ({@link CheckRounds}).</li>
 *   <li>An answer holds only for members that joined before the check was sent; so a joiner rides a check sent after
 *       it joined, or triggers one. Open: they return {@code true}. Closed: a timed member whose time is up returns
 *       {@code false}, the others stay. A failure: see {@link LatchAwait#checkFailed}.</li>
 *   <li>A closed answer from a check sent before the subscription was confirmed settles nobody (a count-down between
 *       it and the subscription sent its message to nobody here): the group subscribes, and checks again once Redis
 *       confirms; members joining meanwhile ride that check.</li>
 *   <li>Then the group sleeps until a message or the bounded re-check ({@link LatchServices#recheckMs}, the latch's
 *       remaining TTL + 1 ms, or the earliest deadline of a timed member, whichever is shortest), and checks again.
 *       A join while it sleeps checks at once; the sleep is then stale and its end is ignored.</li>
 *   <li>Where the pub/sub connection and the scripts share one server ({@link WakeupHub#sameServerAsScripts}), a
 *       {@code 0} heard releases, {@code true} and without a check, the members that a flush point sent after their
 *       join witnessed ({@link FlushMarks}): the group's first {@code SUBSCRIBE}, or an idempotent one sent beside a
 *       check when members joined since the last ({@link #send}). The others wait for the check it causes.</li>
 * </ol>
 * A check that finds the latch open when the group last read it closed, with no message since, runs
 * {@code latch_opened} (docs/protocol.md §11.3): Redisson's untimed awaiters then learn of an expiry or of an opening
 * that published nothing. "No message since" is checked once more after the answer, when Redis has delivered every
 * message it published before ({@link #announceUnlessHeard}): an opening's "0" may come after the answer. Not when
 * that closed read came before the group's subscription was confirmed and saw no TTL: the opening since was then a
 * count-down to zero or a delete, whose "0" may have come before the group listened (the common case of awaiters
 * joining just before the last count-down), and was heard by those who listened.
 *
 * <h2>Lost, not opened</h2>
 * A latch whose key is gone reads as open, which is also what a restart without persistence (or a failover to a node
 * without the key) leaves. Each check therefore carries the server's run id ({@link ServerRuns}): the run id known
 * before it was sent (recorded by each member it answers for: the run of its last closed answer, and, when the member
 * did not find one cached at its start, its first such run), and, for an open answer, the run id once it is in. A
 * member whose last known run — that of its last closed answer, or before one that of its start — differs from the
 * run now serving the missing key fails with
 * {@link io.dlock.LockLostException} ("Redis lost the latch's count") instead of returning {@code true}, and the group
 * announces nothing for it (docs/protocol.md §11.3). So an await whose first check crossed a restart (sent to the old
 * server, answered by the new one) cannot read the lost latch as open either. The key missing <em>and</em> the run
 * changed is the rule: a failover whose new master still has the key changes nothing. And a "0" heard on the channel
 * since the last closed answer ({@link #zeroHeard}: only an opening publishes it) makes an open answer an opening
 * whatever the run, so that count-downs on a promoted replica open the latch even before the group has read it closed
 * there. An await that began on the new run cannot tell and sees an open latch.
 *
 * <p>Lifecycle: {@link LatchServices} creates the group at its first join and drops it, with its subscription, when
 * its last member leaves; a dropped group ignores late answers. Locking: the group's lock is taken inside the services'
 * map lock (join, leave) and never held while sending a check or completing a member; the channel's
 * {@code SUBSCRIBE}s (the group's first, the flush points) are issued under it, which never blocks, so that none is
 * sent after the group's {@code UNSUBSCRIBE}.
 */
final class LatchGroup {
    private final LatchServices services;
    private final RedisCountDownLatch latch;
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

    LatchGroup(LatchServices services, RedisCountDownLatch latch) {
        this.services = services;
        this.latch = latch;
        this.zeroReleases = services.wakeups.sameServerAsScripts();
    }

    /** {@link #add}'s answer when the group subscribes first: the caller then runs {@link #checkOnceSubscribed}. */
    static final long SUBSCRIBING_FIRST = -1;

    /**
     * Adds {@code member}, inside the services' map lock. The first member of a group whose latch this client last
     * knew closed ({@link RedisCountDownLatch#lastKnownClosed}), and that waits long ({@link LatchAwait#waitsLong}),
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
     * Removes {@code member}, inside the services' map lock.
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
        String name = latch.getName();
        // the run id after the read is asked for every open answer but one that a "0" heard explains (an opening
        // publishes one: then it is an opening on any run); asking costs a round trip only after a connection changed
        services.runs.current(name).thenCompose(before -> latch.state().thenCompose(state ->
                        !state.isOpen() || zeroHeardSinceClosed()
                                ? CompletableFuture.completedFuture(new Check(before, state, null, null))
                                : services.runs.current(name).thenApply(after -> new Check(before, state, after, null)))
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
    private record Check(String before, RedisCountDownLatch.State state, String after, Throwable error) {
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
                        announcer = services.wakeups.join(latch.channel().channel(), true);
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
            boolean passes = Errors.isUnavailable(error) && !services.isClosed();
            answeredFor.forEach(member -> member.checkFailed(before, error, passes));
        } else if (open) {
            if (announcer != null) {
                announceUnlessHeard(announcer);
            }
            String after = opened ? null : check.after(); // a "0" heard: opened, on whichever run
            answeredFor.forEach(member -> member.found(before, after));
        } else {
            long now = services.nanoTime.getAsLong();
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
        long ms = services.recheckMs;
        if (ttlMs > 0) {
            ms = Math.min(ms, ttlMs + 1);
        }
        long now = services.nanoTime.getAsLong();
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
            subscription = services.wakeups.join(latch.channel().channel(), true);
            if (zeroReleases && subscription.sentSubscribe()) {
                // its SUBSCRIBE was sent just now, after every member so far joined (they join under this lock)
                confirmOn(subscription.ready(), flushes.sending());
            }
        }
        return subscription;
    }
}
