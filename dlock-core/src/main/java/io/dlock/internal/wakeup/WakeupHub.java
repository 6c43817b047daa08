package io.dlock.internal.wakeup;

import io.dlock.internal.lease.TaskScheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Turns unlock messages on Redis channels into wake-ups of this client's waiters.
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li>One Redis subscription per channel per client, shared by every waiter of that channel and reference-counted:
 *       the first {@link #join} subscribes, the last {@link Subscription#close()} unsubscribes. Subscribe and
 *       unsubscribe of one channel are issued under the map's per-key lock, so they reach Redis in order.</li>
 *   <li>A waiter joins, waits for {@link Subscription#ready()}, then tries to acquire once more before it sleeps:
 *       a release between its failed attempt and its subscription is not lost.</li>
 *   <li>Message {@code 0} wakes one waiter (the others stay asleep, so one unlock does not send every waiter of this
 *       JVM to Redis at once); {@code 1} wakes all. A wake-up of one that finds no sleeper is kept as a permit (at
 *       most one per joined waiter) and consumed by the next sleeper, which then retries at once. A wake-up of all is
 *       kept for every joined waiter, unless the waiter attempted after it came
 *       ({@link Subscription#attempting()}): that attempt already saw what the message announced.</li>
 *   <li>A channel joined with {@code everyMessageWakesAll} (waiters of different kinds, such as the readers and
 *       writers of a read-write lock, where the one waiter woken might still be unable to enter) treats {@code 0}
 *       like {@code 1}.</li>
 *   <li>A channel joined with {@link #joinCounting} (a semaphore's, where a message is the number of permits now
 *       available) reads every message as a count {@code n}: a positive one wakes up to {@code n} waiters, anything
 *       else (zero, negative, not a number) wakes nobody. Lock messages never reach such a channel.</li>
 *   <li>Every sleep is bounded by the caller (the lock's remaining TTL), so a lost message only delays, never
 *       blocks.</li>
 *   <li>{@link #keep} holds channels subscribed between waits without joining their waiters (a line of this
 *       client's owners taking turns on a multi-lock: each turn's waiter joins and leaves, the subscription stays).
 *       A kept channel with no waiter stores no wake-up: nobody would take it but the next waiter, which attempts
 *       once after joining anyway (a subscription already confirmed is ready at once), so it would only cost that
 *       waiter a needless retry. Stored wake-ups are dropped when the last waiter leaves a kept channel.</li>
 *   <li>A channel joined with {@link #joinLingering} (an owner's own channel, a fair waiter's, which every wait of
 *       that owner would otherwise subscribe and unsubscribe) is kept when its last waiter leaves, until it has gone
 *       unused for one to two {@link #LINGER_NANOS}: the owner's next wait finds it confirmed and costs no command
 *       for it. While lingering it is a kept channel like any other (it stores no wake-up without a waiter).</li>
 * </ul>
 * Message handling only completes futures; it never blocks or runs user code, so it is safe on Lettuce's I/O thread.
 */
public final class WakeupHub {
    /** How long a lingering channel ({@link #joinLingering}) stays subscribed unused, at least: 1 s. */
    static final long LINGER_NANOS = 1_000_000_000L;

    private final PubSubPort port;
    private final TaskScheduler scheduler;
    private final Map<String, WakeupChannel> channels = new ConcurrentHashMap<>();

    private final WakeupChannel.Steps steps;

    public WakeupHub(PubSubPort port, TaskScheduler scheduler) {
        this(port, scheduler, WakeupChannel.Steps.NONE);
    }

    /** With {@code steps} told where each sleep and wake-up stands (tests drive interleavings with it). */
    WakeupHub(PubSubPort port, TaskScheduler scheduler, WakeupChannel.Steps steps) {
        this.port = port;
        this.scheduler = scheduler;
        this.steps = steps;
    }

    /** Joins the waiters of {@code channel}, subscribing if this is the first. Never blocks. */
    public Subscription join(String channel) {
        return join(channel, false);
    }

    /**
     * Joins the waiters of {@code channel}, subscribing if this is the first. Never blocks.
     *
     * @param everyMessageWakesAll from now on every message on the channel wakes all its waiters, {@code 0}
     *                             included (for channels whose waiters are of different kinds)
     */
    public Subscription join(String channel, boolean everyMessageWakesAll) {
        return join(channel, everyMessageWakesAll, false);
    }

    /**
     * Joins the waiters of a semaphore's {@code channel}, whose messages are permit counts: a message {@code n > 0}
     * wakes up to {@code n} sleepers, any other wakes nobody. Never blocks.
     */
    public Subscription joinCounting(String channel) {
        return join(channel, false, true);
    }

    /**
     * Joins the waiters of every channel of {@code names} at once, for a wait that any of them ends (a multi-lock
     * taken in one step waits for whichever member is released). Each channel wakes all its waiters on every message
     * ({@link #join(String, boolean)}): such a waiter may find another member still held after a wake-up, and must
     * not have used up the one wake-up another waiter of the channel needed. Never blocks.
     */
    public Subscription joinAll(List<String> names) {
        List<WakeupChannel> joined = new ArrayList<>(names.size());
        for (String name : names) {
            joined.add(join(name, true, false).channels.get(0));
        }
        return new Subscription(this, joined);
    }

    /**
     * Keeps every channel of {@code names} subscribed (subscribing those nobody listens to yet) until the returned
     * handle is closed, without joining their waiters: a waiter's join and leave then cost no (un)subscribe while it
     * is kept. Never blocks. The handle's {@link Subscription#close()} releases the keep; never sleep on it.
     */
    public Subscription keep(List<String> names) {
        List<WakeupChannel> kept = new ArrayList<>(names.size());
        for (String name : names) {
            kept.add(channels.compute(name, (key, existing) -> {
                WakeupChannel c = existing != null ? existing
                        : new WakeupChannel(key, port.subscribe(key), scheduler, steps);
                c.keeps++;
                return c;
            }));
        }
        return new Subscription(this, kept, true);
    }

    /**
     * Joins as {@link #join(String, boolean)} a channel that is one owner's own (a fair waiter's): when its last waiter
     * leaves, the channel lingers, subscribed, until it has gone unused for one to two {@link #LINGER_NANOS}, so that
     * the owner's next wait in that time costs no subscribe and no unsubscribe. Never blocks.
     */
    public Subscription joinLingering(String channel, boolean everyMessageWakesAll) {
        return join(channel, everyMessageWakesAll, false, true);
    }

    private Subscription join(String channel, boolean everyMessageWakesAll, boolean counting) {
        return join(channel, everyMessageWakesAll, counting, false);
    }

    private Subscription join(String channel, boolean everyMessageWakesAll, boolean counting, boolean lingers) {
        boolean[] subscribed = new boolean[1];
        WakeupChannel joined = channels.compute(channel, (name, existing) -> {
            subscribed[0] = existing == null;
            WakeupChannel c = existing != null ? existing : new WakeupChannel(name, port.subscribe(name), scheduler, steps);
            c.refs++;
            if (lingers) {
                c.lingers = true;
            }
            if (everyMessageWakesAll) {
                c.everyMessageWakesAll = true;
            }
            if (counting) {
                c.countsPermits = true;
            }
            return c;
        });
        return new Subscription(this, List.of(joined), false, subscribed[0]);
    }

    void leave(WakeupChannel channel) {
        channels.computeIfPresent(channel.name, (name, current) -> {
            if (current != channel) {
                return current;
            }
            if (--current.refs > 0) {
                return current;
            }
            if (current.lingers) {
                current.usedSinceArmed = true;
                if (!current.lingering) {
                    current.lingering = true;
                    current.keeps++;
                    armLinger(current);
                }
            }
            if (current.keeps > 0) {
                current.dropStoredWakeups(); // the next waiter attempts after joining: they would only cost a retry
                return current;
            }
            port.unsubscribe(name);
            return null;
        });
    }

    /** Looks again in {@link #LINGER_NANOS}: a lingering channel used since is kept on, one unused is let go. */
    private void armLinger(WakeupChannel channel) {
        scheduler.schedule(() -> channels.computeIfPresent(channel.name, (name, current) -> {
            if (current != channel) {
                return current;
            }
            if (current.refs > 0 || current.usedSinceArmed) {
                current.usedSinceArmed = false;
                armLinger(current);
                return current;
            }
            current.lingering = false;
            return release(current);
        }), LINGER_NANOS);
    }

    void unkeep(WakeupChannel channel) {
        channels.computeIfPresent(channel.name, (name, current) -> {
            if (current != channel) {
                return current;
            }
            return release(current);
        });
    }

    /** Drops one keep of {@code channel}; unsubscribes when nobody keeps or joins it. Under the map's key lock. */
    private WakeupChannel release(WakeupChannel channel) {
        if (--channel.keeps > 0 || channel.refs > 0) {
            return channel;
        }
        port.unsubscribe(channel.name);
        return null;
    }

    /** Called for every message on a subscribed channel (on the I/O thread). */
    public void onMessage(String channel, String message) {
        WakeupChannel c = channels.get(channel);
        if (c == null) {
            return;
        }
        if (c.countsPermits) {
            c.wakeSome(permitCount(message));
            return;
        }
        if ("1".equals(message) || ("0".equals(message) && c.everyMessageWakesAll)) {
            c.wakeAll();
        } else if ("0".equals(message)) {
            c.wakeOne();
        }
    }

    /** @return the permit count a semaphore message carries, or 0 when it is not a decimal integer */
    public static long permitCount(String message) {
        try {
            return Long.parseLong(message);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Wakes every waiter of every channel (after a reconnect, messages may have been missed). */
    public void wakeEverybody() {
        channels.values().forEach(WakeupChannel::wakeAll);
    }

    /**
     * @return whether this client subscribes to {@code channel} now (as far as it knows: a subscribe or unsubscribe
     *         may still be on its way to Redis)
     */
    public boolean listensTo(String channel) {
        return channels.containsKey(channel);
    }

    /**
     * @return whether every one of {@code names} is subscribed and Redis confirmed it: a waiter joining them now is
     *         ready at once, without a command
     */
    public boolean confirmed(List<String> names) {
        for (String name : names) {
            WakeupChannel channel = channels.get(name);
            if (channel == null || !channel.ready.isDone() || channel.ready.isCompletedExceptionally()) {
                return false;
            }
        }
        return true;
    }

    /** @return {@link PubSubPort#sameServerAsScripts()} of this hub's port */
    public boolean sameServerAsScripts() {
        return port.sameServerAsScripts();
    }

    /** @return channels currently subscribed */
    public int subscriptionCount() {
        return channels.size();
    }

    /** @return sleeping waiters over all channels */
    public int sleeperCount() {
        return channels.values().stream().mapToInt(WakeupChannel::sleepers).sum();
    }

    /** A waiter's membership in one channel, or in several ({@link #joinAll}). Close it exactly once when the wait ends. */
    public static final class Subscription implements AutoCloseable {
        private final WakeupHub hub;
        private final List<WakeupChannel> channels;
        /** This waiter's mark on each channel, in the order of {@link #channels}. */
        private final List<WakeupChannel.Seen> seen;
        /** A {@link #keep}: holds the subscription, is no waiter. */
        private final boolean keeping;
        /** Joining sent the channel's {@code SUBSCRIBE}: see {@link #sentSubscribe()}. */
        private final boolean sentSubscribe;
        private boolean closed;

        Subscription(WakeupHub hub, WakeupChannel channel) {
            this(hub, List.of(channel));
        }

        Subscription(WakeupHub hub, List<WakeupChannel> channels) {
            this(hub, channels, false);
        }

        Subscription(WakeupHub hub, List<WakeupChannel> channels, boolean keeping) {
            this(hub, channels, keeping, false);
        }

        Subscription(WakeupHub hub, List<WakeupChannel> channels, boolean keeping, boolean sentSubscribe) {
            this.hub = hub;
            this.channels = List.copyOf(channels);
            this.seen = this.channels.stream().map(WakeupChannel::newSeen).toList();
            this.keeping = keeping;
            this.sentSubscribe = sentSubscribe;
        }

        /**
         * @return whether joining this single channel sent its {@code SUBSCRIBE} (nobody in this client listened to
         *         it before): {@link #ready()} is then a {@linkplain #flush() flush point} sent at the join
         */
        public boolean sentSubscribe() {
            return sentSubscribe;
        }

        /**
         * Sends a flush point: an idempotent {@code SUBSCRIBE} of each channel on the pub/sub connection. Redis answers
         * it after every message it had published on the channel before the command reached it, and Lettuce hands that
         * answer and the messages over in the order they came, on its I/O thread. So a message handled after the
         * returned future completed (and its callbacks, added before it completed, ran) was published after the
         * command ran. Call it while this subscription is open: it keeps the channels subscribed, so no
         * {@code UNSUBSCRIBE} overtakes it. Never blocks.
         *
         * @return completes once Redis answered for every channel; fails when a {@code SUBSCRIBE} failed
         */
        public CompletableFuture<Void> flush() {
            if (channels.size() == 1) {
                return hub.port.subscribe(channels.get(0).name);
            }
            return CompletableFuture.allOf(channels.stream().map(c -> hub.port.subscribe(c.name))
                    .toArray(CompletableFuture<?>[]::new));
        }

        /** Completes when Redis has confirmed the subscription (at once if it already had); of every channel. */
        public CompletableFuture<Void> ready() {
            if (channels.size() == 1) {
                return channels.get(0).ready;
            }
            return CompletableFuture.allOf(channels.stream().map(c -> c.ready).toArray(CompletableFuture<?>[]::new));
        }

        /**
         * Sleeps (without a thread) until a wake-up or {@code timeoutMillis}, whichever is first; with several
         * channels, until a wake-up on any of them (the sleeps on the others then end).
         *
         * @return completes with true when woken by a message, false on timeout
         */
        public CompletableFuture<Boolean> sleep(long timeoutMillis) {
            if (channels.size() == 1) {
                return channels.get(0).sleep(timeoutMillis, seen.get(0));
            }
            CompletableFuture<Boolean> any = new CompletableFuture<>();
            List<CompletableFuture<Boolean>> sleeps = new ArrayList<>(channels.size());
            for (int i = 0; i < channels.size(); i++) {
                sleeps.add(channels.get(i).sleep(timeoutMillis, seen.get(i)));
            }
            AtomicInteger timedOut = new AtomicInteger();
            for (CompletableFuture<Boolean> sleep : sleeps) {
                sleep.whenComplete((woken, error) -> {
                    if (Boolean.TRUE.equals(woken)) {
                        any.complete(true);
                    } else if (timedOut.incrementAndGet() == sleeps.size()) {
                        any.complete(false);
                    }
                });
            }
            // ended by one channel, or cut short by the waiter: the sleeps on the others end (a wake-up that reaches
            // one of them later goes to the channel's next sleeper, see WakeupChannel#wakeOne)
            any.whenComplete((woken, error) -> sleeps.forEach(sleep -> sleep.complete(false)));
            return any;
        }

        /**
         * Tells the channels that this waiter is about to send an attempt to Redis: the "wake all" messages received
         * until now are covered by that attempt's answer and will not end its next sleep. Call it just before the
         * attempt is sent, never after. Never blocks.
         */
        public void attempting() {
            for (int i = 0; i < channels.size(); i++) {
                channels.get(i).attempting(seen.get(i));
            }
        }

        /**
         * Completes once Redis has delivered every message it had published on these channels before this call
         * reached it (an idempotent {@code SUBSCRIBE} on the pub/sub connection, whose confirmation comes after them),
         * with whether a "wake all" came since this waiter joined or last {@linkplain #attempting() attempted}: for
         * channels where every message wakes all (a latch's), whether any message came. With {@code false} when the
         * {@code SUBSCRIBE} failed (no message is known to have come). Call it while this subscription is open: it
         * keeps the channels subscribed, so no {@code UNSUBSCRIBE} overtakes it.
         */
        public CompletableFuture<Boolean> heardAfterFlush() {
            return flush().handle((ok, error) -> {
                if (error != null) {
                    return false;
                }
                for (int i = 0; i < channels.size(); i++) {
                    if (channels.get(i).wokeAllSince(seen.get(i))) {
                        return true;
                    }
                }
                return false;
            });
        }

        /** Hands a wake-up this waiter received but did not use to the next waiter (of each of its channels). */
        public void passOnWakeup() {
            channels.forEach(WakeupChannel::wakeOne);
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                channels.forEach(keeping ? hub::unkeep : hub::leave);
            }
        }
    }
}
