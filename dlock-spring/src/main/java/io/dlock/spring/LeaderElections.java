package io.dlock.spring;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LockClient;
import org.springframework.context.SmartLifecycle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The leader elections an application runs, one candidate per name, for {@link LeaderOnly} methods (and the
 * starter's actuator endpoint). Declare it as a bean in a plain Spring application; the Spring Boot starter declares
 * one from the {@code dlock.leader.elections.<name>.*} properties.
 *
 * <pre>{@code
 * @Bean
 * LeaderElections leaderElections(LockClient client) {
 *     return new LeaderElections(client)
 *             .add("billing", LeaderElectionSettings.builder().lease(Duration.ofSeconds(30)).build());
 * }
 * }</pre>
 *
 * <p>A name that a {@link LeaderOnly} method gives and that was not {@linkplain #add added} is added with
 * {@link LeaderElectionSettings#defaults()} when the context has created its singletons (or on the method's first
 * call), auto-started.
 *
 * <p>Lifecycle: a {@link SmartLifecycle}, auto-started, phase {@code Integer.MAX_VALUE - 1000} (as
 * {@link DlockLeaderInitiator}). {@link #start()} makes each auto-started election a candidate
 * ({@link LockClient#getLeaderElection(String, LeaderElectionSettings)}); {@link #stop()} closes every candidate
 * (blocking: a leader's term ends, its {@code @LeaderOnly} calls are interrupted and given up to the stop timeout to
 * return, then the lock is released). A candidate, once closed, cannot start again: each start makes a new
 * {@link LeaderElection} object, so keep the name, not the object. The {@link LockClient} is not closed: it belongs to
 * the application.
 *
 * <p>The candidates' task ({@link LeaderElection#runWhileLeader}) is this registry's: do not set another on them,
 * and start and stop them through this registry ({@link #start(String)}, {@link #stop(String)}) rather than on the
 * object. Listeners ({@link LeaderElection#addListener}), {@code resign()} and {@code awaitLeadership} are free to use.
 *
 * <p>Thread-safe.
 */
public class LeaderElections implements SmartLifecycle {
    private final LockClient client;
    private final ConcurrentSkipListMap<String, ElectionSlot> slots = new ConcurrentSkipListMap<>();
    private volatile boolean running;
    private volatile boolean autoStartup = true;
    private volatile int phase = Integer.MAX_VALUE - 1000;

    /**
     * @param client the client the elections run on; not closed by this registry
     * @throws NullPointerException when {@code client} is null
     */
    public LeaderElections(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Adds an election, auto-started; as {@link #add(String, LeaderElectionSettings, boolean) add(name, settings,
     * true)}.
     */
    public LeaderElections add(String name, LeaderElectionSettings settings) {
        return add(name, settings, true);
    }

    /**
     * Adds an election. When this registry is running and {@code autoStart} is true, it becomes a candidate at once.
     *
     * @param name      the election's name, the same in every instance (its fenced lock's name)
     * @param settings  its timing
     * @param autoStart whether {@link #start()} makes it a candidate; when false, {@link #start(String)} does
     * @return this registry
     * @throws NullPointerException     when {@code name} or {@code settings} is null
     * @throws IllegalArgumentException when {@code name} is blank
     * @throws IllegalStateException    when an election of that name was added already
     */
    public LeaderElections add(String name, LeaderElectionSettings settings, boolean autoStart) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(settings, "settings");
        if (name.isBlank()) {
            throw new IllegalArgumentException("an election's name must not be blank");
        }
        ElectionSlot slot = new ElectionSlot(client, name, settings, autoStart);
        if (slots.putIfAbsent(name, slot) != null) {
            throw new IllegalStateException("election '" + name + "' was added already, with " + slots.get(name)
                    .settings());
        }
        startIfRunning(slot);
        return this;
    }

    /** @return the names of the elections added, sorted; a snapshot */
    public NavigableSet<String> names() {
        return Collections.unmodifiableNavigableSet(new java.util.TreeSet<>(slots.keySet()));
    }

    /** @return the timing of the election {@code name}, or empty when it was not added */
    public Optional<LeaderElectionSettings> settings(String name) {
        return Optional.ofNullable(slots.get(name)).map(ElectionSlot::settings);
    }

    /**
     * @return the running candidate of the election {@code name}, or empty when the election is stopped or was not
     *         added; never blocks
     */
    public Optional<LeaderElection> election(String name) {
        return Optional.ofNullable(slots.get(name)).map(ElectionSlot::election);
    }

    /**
     * Makes the election {@code name} a candidate (a new one when it was stopped); never blocks; nothing when it
     * runs already.
     *
     * @throws IllegalArgumentException when no election of that name was added
     * @throws io.dlock.LockException   when the client is closed
     */
    public void start(String name) {
        slot(name).start();
    }

    /**
     * Stops the election {@code name}: its term (if any) ends, its {@code @LeaderOnly} calls are interrupted and
     * awaited up to the stop timeout, then its lock is released. Blocking; nothing when it is stopped. Called from
     * inside one of that election's {@code @LeaderOnly} calls, it starts the stop and returns at once (the stop drains
     * that very call, which is interrupted as the term ends).
     *
     * @throws IllegalArgumentException when no election of that name was added
     */
    public void stop(String name) {
        slot(name).stop();
    }

    /** Makes every auto-started election a candidate; never blocks. */
    @Override
    public synchronized void start() {
        running = true;
        for (ElectionSlot slot : slots.values()) {
            if (slot.autoStart()) {
                slot.start();
            }
        }
    }

    /** Stops every election, one after the other (blocking: see {@link #stop(String)}). */
    @Override
    public synchronized void stop() {
        running = false;
        List<RuntimeException> failures = new ArrayList<>();
        for (ElectionSlot slot : slots.values()) {
            try {
                slot.stop();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /** @param autoStartup whether the application context starts this registry (default true) */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /** @param phase the lifecycle phase (default {@code Integer.MAX_VALUE - 1000}) */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    /**
     * The slot of a name a {@link LeaderOnly} method gives: added with the defaults, auto-started, when missing.
     */
    ElectionSlot declare(String name) {
        ElectionSlot slot = slots.get(name);
        if (slot != null) {
            return slot;
        }
        ElectionSlot made = new ElectionSlot(client, name, LeaderElectionSettings.defaults(), true);
        slot = slots.putIfAbsent(name, made);
        if (slot != null) {
            return slot;
        }
        startIfRunning(made);
        return made;
    }

    private void startIfRunning(ElectionSlot slot) {
        // under the lifecycle's monitor, so that a concurrent stop() either sees the slot or finds it not started
        synchronized (this) {
            if (running && slot.autoStart()) {
                slot.start();
            }
        }
    }

    private ElectionSlot slot(String name) {
        ElectionSlot slot = slots.get(Objects.requireNonNull(name, "name"));
        if (slot == null) {
            throw new IllegalArgumentException("no election '" + name + "' in " + this);
        }
        return slot;
    }

    @Override
    public String toString() {
        return "LeaderElections" + slots.keySet();
    }
}
