package io.dlock.chaos;

import io.dlock.testkit.RedisServer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.FREED;
import static io.dlock.chaos.Event.Type.NOTE;
import static io.dlock.chaos.Event.Type.NOT_FREED;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;

/**
 * Injects faults, one at a time, chosen with a seeded {@link Random}, and logs each one (start, end, and for Redis
 * faults the window in which Redis certainly cannot answer). Between two faults it stays quiet for the grace period
 * (a lease plus one second: every effect of the fault is over by then) and a little more, so that the run has
 * fault-free stretches in which the critical sections must not overlap.
 *
 * <p>The first faults are every enabled kind once, in a seeded order; then kinds are drawn at random.
 */
final class Nemesis {
    private final ChaosSettings settings;
    private final RedisServer redis;
    private final RedisAdmin admin;
    private final String lockName;
    private final List<WorkerProcess> workers;
    /** Starts a replacement for a killed worker. */
    private final Function<WorkerProcess, WorkerProcess> replace;
    private final EventLog log;
    private final Random random;
    private final Set<Fault> enabled;
    private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);

    Nemesis(ChaosSettings settings, RedisServer redis, String lockName, List<WorkerProcess> workers,
            Function<WorkerProcess, WorkerProcess> replace, EventLog log, Set<Fault> enabled) {
        this.settings = settings;
        this.redis = redis;
        this.admin = new RedisAdmin(redis.host(), redis.port());
        this.lockName = lockName;
        this.workers = workers;
        this.replace = replace;
        this.log = log;
        this.random = new Random(settings.seed());
        this.enabled = EnumSet.copyOf(enabled);
    }

    /** Injects faults until {@code deadlineNanos}; returns how many of each kind. */
    Map<Fault, Integer> run(long deadlineNanos) {
        List<Fault> firstRound = new ArrayList<>(enabled);
        Collections.shuffle(firstRound, random);
        List<Fault> kinds = new ArrayList<>(enabled);
        quiet(2000 + random.nextInt(1000));
        int n = 0;
        while (System.nanoTime() - deadlineNanos < 0) {
            Fault fault = n < firstRound.size() ? firstRound.get(n) : kinds.get(random.nextInt(kinds.size()));
            n++;
            inject(fault);
            quiet(settings.graceMs() + 500 + random.nextInt(1000));
        }
        return injected;
    }

    private void inject(Fault fault) {
        try {
            switch (fault) {
                case KILL_HOLDER -> killHolder();
                case PAUSE_HOLDER -> pauseHolder();
                case REDIS_RESTART -> restartRedis();
                case REDIS_FREEZE -> freezeRedis();
                case CLIENT_KILL -> killClients();
                case CLIENT_PAUSE -> pauseClients();
                case DEBUG_SLEEP -> debugSleep();
            }
        } catch (IOException | RuntimeException e) {
            log.record(NOTE, "fault " + fault.label() + " failed: " + e);
            log.record(FAULT_END, fault.label());
            if (!redis.isRunning()) {
                redis.restart();
            } else if (redis.isPaused()) {
                redis.resume();
            }
        }
    }

    private void started(Fault fault, String target) {
        injected.merge(fault, 1, Integer::sum);
        log.record(FAULT_START, fault.label() + " " + target);
    }

    // ------------------------------------------------------------------------------------------ holders

    /** @return the worker holding the lock now (polls up to 3 s), or null */
    private WorkerProcess holder() throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        do {
            Object reply = admin.call("HKEYS", lockName);
            if (reply instanceof List<?> fields) {
                for (Object field : fields) {
                    for (WorkerProcess w : workers) {
                        if (field.equals(w.field()) && w.process.isAlive()) {
                            return w;
                        }
                    }
                }
            }
            WorkerProcess.sleep(10);
        } while (System.nanoTime() - deadline < 0);
        return null;
    }

    private void killHolder() throws IOException {
        WorkerProcess victim = holder();
        if (victim == null) {
            log.record(NOTE, "skip kill-holder: nobody held the lock");
            return;
        }
        started(Fault.KILL_HOLDER, victim.id);
        long killedAt = System.nanoTime();
        victim.kill();
        log.record(Event.Type.EXITED, victim.id + " killed");
        long boundMs = settings.watchdogMs() + 3000;
        Long freedAfterMs = null;
        while (Duration.ofNanos(System.nanoTime() - killedAt).toMillis() < boundMs) {
            Object present = admin.call("HEXISTS", lockName, victim.field());
            if (Long.valueOf(0).equals(present)) {
                freedAfterMs = Duration.ofNanos(System.nanoTime() - killedAt).toMillis();
                break;
            }
            WorkerProcess.sleep(10);
        }
        if (freedAfterMs != null) {
            log.record(FREED, victim.id + " " + freedAfterMs);
        } else {
            log.record(NOT_FREED, victim.id + " still held " + boundMs + " ms after the kill");
        }
        workers.set(workers.indexOf(victim), replace.apply(victim));
        log.record(FAULT_END, Fault.KILL_HOLDER.label());
    }

    private void pauseHolder() throws IOException {
        WorkerProcess victim = holder();
        if (victim == null) {
            log.record(NOTE, "skip pause-holder: nobody held the lock");
            return;
        }
        long pauseMs = settings.watchdogMs() + 1000;
        started(Fault.PAUSE_HOLDER, victim.id);
        victim.signal("STOP");
        try {
            WorkerProcess.sleep(pauseMs);
        } finally {
            // stamped before the signal: whatever the victim does after this stamp, it did after resuming
            log.record(FAULT_END, Fault.PAUSE_HOLDER.label());
            victim.signal("CONT");
        }
    }

    // ------------------------------------------------------------------------------------------ Redis

    private void restartRedis() {
        started(Fault.REDIS_RESTART, "redis");
        redis.kill();
        log.record(REDIS_DOWN, Fault.REDIS_RESTART.label());
        WorkerProcess.sleep(300 + random.nextInt(500));
        log.record(REDIS_UP, Fault.REDIS_RESTART.label());
        redis.restart();
        log.record(FAULT_END, Fault.REDIS_RESTART.label());
    }

    private void freezeRedis() {
        started(Fault.REDIS_FREEZE, "redis");
        redis.pause();
        log.record(REDIS_DOWN, Fault.REDIS_FREEZE.label());
        try {
            WorkerProcess.sleep(1500 + random.nextInt(1000));
        } finally {
            log.record(REDIS_UP, Fault.REDIS_FREEZE.label());
            redis.resume();
            log.record(FAULT_END, Fault.REDIS_FREEZE.label());
        }
    }

    private void killClients() throws IOException {
        started(Fault.CLIENT_KILL, "redis");
        Object normal = admin.call("CLIENT", "KILL", "TYPE", "normal");
        Object pubsub = admin.call("CLIENT", "KILL", "TYPE", "pubsub");
        log.record(NOTE, "client-kill: " + normal + " normal, " + pubsub + " pub/sub connections");
        log.record(FAULT_END, Fault.CLIENT_KILL.label());
    }

    private void pauseClients() throws IOException {
        long ms = 1500 + random.nextInt(1000);
        started(Fault.CLIENT_PAUSE, "redis " + ms + " ms");
        long sent = System.nanoTime();
        admin.call("CLIENT", "PAUSE", Long.toString(ms));
        long answered = System.nanoTime();
        // Redis holds commands from when it ran CLIENT PAUSE (after `sent`, before `answered`) for `ms`.
        long until = sent + ms * 1_000_000L;
        log.write(new Event(answered, "nemesis", REDIS_DOWN, Event.NO_TOKEN, Fault.CLIENT_PAUSE.label()));
        WorkerProcess.sleep(Math.max(0, Duration.ofNanos(until - System.nanoTime()).toMillis()));
        log.write(new Event(until, "nemesis", REDIS_UP, Event.NO_TOKEN, Fault.CLIENT_PAUSE.label()));
        WorkerProcess.sleep(50);
        log.record(FAULT_END, Fault.CLIENT_PAUSE.label());
    }

    private void debugSleep() throws IOException {
        long ms = 1500 + random.nextInt(1000);
        started(Fault.DEBUG_SLEEP, "redis " + ms + " ms");
        long sent = System.nanoTime();
        admin.call(Duration.ofMillis(ms + 5000), "DEBUG", "SLEEP", String.format(java.util.Locale.ROOT, "%.3f", ms / 1000.0));
        long answered = System.nanoTime();
        // Redis slept `ms` from some moment in [sent, answered - ms]: certainly during [answered - ms, sent + ms].
        long from = answered - ms * 1_000_000L;
        long until = sent + ms * 1_000_000L;
        if (until - from > 0) {
            log.write(new Event(from, "nemesis", REDIS_DOWN, Event.NO_TOKEN, Fault.DEBUG_SLEEP.label()));
            log.write(new Event(until, "nemesis", REDIS_UP, Event.NO_TOKEN, Fault.DEBUG_SLEEP.label()));
        }
        log.record(FAULT_END, Fault.DEBUG_SLEEP.label());
    }

    /** Whether {@code DEBUG SLEEP} is allowed on this server. */
    static boolean debugAllowed(RedisServer redis, EventLog log) {
        try {
            new RedisAdmin(redis.host(), redis.port()).call("DEBUG", "SLEEP", "0");
            return true;
        } catch (IOException e) {
            log.record(NOTE, "skip debug-sleep: this redis-server refuses DEBUG (" + e.getMessage() + ")");
            return false;
        }
    }

    private static void quiet(long millis) {
        WorkerProcess.sleep(millis);
    }
}
