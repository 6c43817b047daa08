package io.dlock.internal.election;

import io.dlock.LeaderChange;
import io.dlock.LeaderInfo;
import io.dlock.LeaderObserver;
import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.wakeup.WakeupHub;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The observations of who leads elections ({@code LockClient.observeLeader}, and each started candidate's
 * {@code leaderChanged}) of one client. An observation keeps the election's two channels subscribed (the lock's, whose
 * unlock message announces a release, and the leader channel, on which a win publishes its epoch; docs/protocol.md
 * §14.4) and re-reads the leader ({@link LeaderReader}):
 * <ul>
 *   <li>once its subscription is confirmed, so that nothing published after that read is missed;</li>
 *   <li>on every message of those channels;</li>
 *   <li>after every resubscription of the client's pub/sub connection (messages published while it was down are
 *       lost), so a reconnected observer catches up;</li>
 *   <li>when the leader's time to live runs out (a leader that died publishes nothing), and a second after a failed
 *       read.</li>
 * </ul>
 * Of the readings, the observer is told only changes, in the order the reads were sent: a leader whose epoch is above
 * every leader it was told before, or no leader after one; a reply to an older read than the last one applied is
 * dropped. So an observer never sees epochs go down, nor a leader twice. Observers run on the client's executor, one
 * call at a time per observation. Thread-safe; nothing here blocks.
 */
public final class LeaderObservers {
    private static final Logger log = LoggerFactory.getLogger(LeaderObservers.class);
    /** Re-read this long after the leader's TTL ran out: the expiry is the server's, a little later than its PTTL. */
    private static final long AFTER_EXPIRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LeaderReader reader;
    private final WakeupHub wakeups;
    private final TaskScheduler timer;
    private final Executor executor;
    /** Every open observation by each of its channels. */
    private final Map<String, Set<Observation>> byChannel = new ConcurrentHashMap<>();

    public LeaderObservers(LeaderReader reader, WakeupHub wakeups, TaskScheduler timer, Executor executor) {
        this.reader = reader;
        this.wakeups = wakeups;
        this.timer = timer;
        this.executor = executor;
    }

    /**
     * Starts observing {@code name}: subscribes, then reads. Never blocks.
     *
     * @return the handle whose {@code close()} stops it (idempotent, never blocks)
     */
    public LeaderObserver.Subscription observe(String name, LeaderObserver observer) {
        Observation observation = new Observation(name, Objects.requireNonNull(observer, "observer"));
        for (String channel : LeaderReader.channels(name)) {
            byChannel.computeIfAbsent(channel, key -> ConcurrentHashMap.newKeySet()).add(observation);
        }
        observation.start();
        return observation;
    }

    /** A message came on {@code channel} (on an I/O thread): the observations of that channel re-read. */
    public void message(String channel) {
        Set<Observation> observing = byChannel.get(channel);
        if (observing != null) {
            observing.forEach(Observation::reread);
        }
    }

    /** The pub/sub connection was subscribed again: every observation re-reads. */
    public void resubscribed() {
        byChannel.values().stream().flatMap(Set::stream).distinct().forEach(Observation::reread);
    }

    /** Closes every observation (the client closes). */
    public void close() {
        byChannel.values().stream().flatMap(Set::stream).distinct().toList().forEach(Observation::close);
    }

    /** @return the open observations (for tests) */
    public int count() {
        return (int) byChannel.values().stream().flatMap(Set::stream).distinct().count();
    }

    private final class Observation implements LeaderObserver.Subscription {
        private final String name;
        private final LeaderObserver observer;
        private final WakeupHub.Subscription subscription;
        /** Guarded by this: the reads sent and the last one applied, by their order of sending. */
        private long sent;
        private long applied;
        private boolean told;
        /** The highest epoch told, 0 before any; and whether the last told was a leader. */
        private long epoch;
        private boolean leading;
        private Runnable cancelTimer = () -> { };
        /** The calls of the observer, one after another on the executor. */
        private CompletableFuture<Void> calls = CompletableFuture.completedFuture(null);
        private volatile boolean closed;

        Observation(String name, LeaderObserver observer) {
            this.name = name;
            this.observer = observer;
            this.subscription = wakeups.keep(LeaderReader.channels(name));
        }

        void start() {
            subscription.ready().whenComplete((ok, error) -> {
                if (error != null) {
                    log.debug("leader observer of '{}': subscribing failed ({}); it reads at the leader's TTL",
                            name, error.toString());
                }
                reread();
            });
        }

        void reread() {
            long order;
            synchronized (this) {
                if (closed) {
                    return;
                }
                order = ++sent;
            }
            reader.read(name).whenComplete((leader, error) -> apply(order, leader, error));
        }

        private synchronized void apply(long order, Optional<LeaderInfo> leader, Throwable error) {
            if (closed || order < applied) {
                return;
            }
            applied = order;
            cancelTimer.run();
            if (error != null) {
                log.debug("leader observer of '{}': a read failed: {}", name, error.toString());
                cancelTimer = timer.schedule(this::reread, RETRY_NANOS);
                return;
            }
            if (leader.isPresent()) {
                long ttlNanos = leader.get().timeToLive().toNanos();
                cancelTimer = timer.schedule(this::reread, ttlNanos + AFTER_EXPIRY_NANOS);
            } else {
                cancelTimer = () -> { };
            }
            boolean change = !told || (leader.isPresent() ? leader.get().epoch() > epoch : leading);
            if (!change) {
                return;
            }
            told = true;
            leading = leader.isPresent();
            if (leading) {
                epoch = leader.get().epoch();
            }
            LeaderChange news = new LeaderChange(name, leader.orElse(null));
            calls = calls.thenRunAsync(() -> tell(news), executor).exceptionally(rejected -> null);
        }

        private void tell(LeaderChange change) {
            if (closed) {
                return;
            }
            try {
                observer.leaderChanged(change);
            } catch (RuntimeException e) {
                log.error("leader observer {} of '{}' failed", observer, name, e);
            }
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                cancelTimer.run();
            }
            for (String channel : LeaderReader.channels(name)) {
                byChannel.computeIfPresent(channel, (key, set) -> {
                    set.remove(this);
                    return set.isEmpty() ? null : set;
                });
            }
            subscription.close();
        }

        @Override
        public String toString() {
            return "LeaderObservation{" + name + ", " + observer + "}";
        }
    }
}
