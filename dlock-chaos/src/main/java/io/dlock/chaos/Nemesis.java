package io.dlock.chaos;

import io.dlock.redisprocess.RedisServer;

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

import static io.dlock.chaos.Event.Type.CONNECTIONS_KILLED;
import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.FREED;
import static io.dlock.chaos.Event.Type.NOTE;
import static io.dlock.chaos.Event.Type.NOT_FREED;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;
import static io.dlock.chaos.Event.Type.RELEASE_FREED;
import static io.dlock.chaos.Event.Type.RELEASE_NOT_FREED;

/**
 * Injects faults, one at a time, chosen with a seeded {@link Random}, and logs each one (start, end, and for Redis
 * faults the window in which Redis certainly cannot answer). Between two faults it stays quiet for the grace period
 * (a lease plus one second: every effect of the fault is over by then) and a little more, so that the run has
 * fault-free stretches in which the critical sections must not overlap.
 *
 * <p>The first faults are every enabled kind once, in a seeded order; then kinds are drawn at random. Faults aimed
 * at a holder pick one of the locks of every {@link Workload} that is held at that moment.
 */
final class Nemesis {
    private final ChaosSettings settings;
    private final RedisServer redis;
    private final RedisAdmin admin;
    private final List<WorkerProcess> workers;
    /** Starts a replacement for a killed worker. */
    private final Function<WorkerProcess, WorkerProcess> replace;
    private final EventLog log;
    private final Random random;
    private final Set<Fault> enabled;
    private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
    /** Whether the server takes {@code DEBUG SLEEP} (else command stalls are SIGSTOPs). */
    private final boolean debug;

    Nemesis(ChaosSettings settings, RedisServer redis, List<WorkerProcess> workers,
            Function<WorkerProcess, WorkerProcess> replace, EventLog log, Set<Fault> enabled, boolean debug) {
        this.settings = settings;
        this.redis = redis;
        this.admin = new RedisAdmin(redis.host(), redis.port());
        this.workers = workers;
        this.replace = replace;
        this.log = log;
        this.random = new Random(settings.seed());
        this.enabled = EnumSet.copyOf(enabled);
        this.debug = debug;
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
                case RELEASE_DROP -> dropReleases();
                case COMMAND_STALL -> stallCommands();
            }
        } catch (IOException | RuntimeException e) {
            log.record(NOTE, "fault " + fault.label() + " failed: " + e);
            log.record(FAULT_END, fault.label());
            try {
                admin.call("CLIENT", "UNPAUSE");
            } catch (IOException | RuntimeException ignored) {
                // not paused, or not running: handled below
            }
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

    /** One hold in Redis: the worker, the lock kind, the hash it lives in (a multi-lock's member) and its field. */
    record Target(WorkerProcess worker, Workload kind, String key, String field) {
        /** @return the loop that holds it, {@code w3/rw/t1} */
        String loop() {
            return worker.loopOf(field);
        }
    }

    /** @return a hold of a live worker on a lock of a seeded-random kind (polls up to 3 s), or null */
    private Target holder() throws IOException {
        List<Workload> kinds = new ArrayList<>(List.of(Workload.values()));
        kinds.removeIf(kind -> !kind.hashHolds()); // a permit has no owner in Redis to aim at
        Collections.shuffle(kinds, random);
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        do {
            for (Workload kind : kinds) {
                List<Target> held = holds(kind);
                if (!held.isEmpty()) {
                    return held.get(random.nextInt(held.size()));
                }
            }
            WorkerProcess.sleep(10);
        } while (System.nanoTime() - deadline < 0);
        return null;
    }

    /** @return the holds of live workers on the lock(s) of {@code kind} now; none for a semaphore */
    private List<Target> holds(Workload kind) throws IOException {
        List<Target> held = new ArrayList<>();
        if (!kind.hashHolds()) {
            return held;
        }
        for (String key : kind.hashKeys()) {
            Object reply = admin.call("HKEYS", key);
            if (reply instanceof List<?> fields) {
                for (Object field : fields) {
                    for (WorkerProcess w : List.copyOf(workers)) {
                        if (w.owns(field.toString()) && w.process.isAlive()) {
                            held.add(new Target(w, kind, key, field.toString()));
                        }
                    }
                }
            }
        }
        return held;
    }

    /**
     * Whether a hold is over in Redis: its field is gone from the lock hash or, for a reader of the read-write lock,
     * its timeout key is gone (a dead reader's field may stay in the hash while other readers keep it alive; it no
     * longer counts as a hold then).
     */
    private boolean over(Target t) throws IOException {
        if (Long.valueOf(0).equals(admin.call("HEXISTS", t.key(), t.field()))) {
            return true;
        }
        if (t.kind() == Workload.READ_WRITE && !t.field().endsWith(Workload.WRITER_SUFFIX)) {
            return Long.valueOf(0).equals(admin.call("EXISTS", t.kind().readTimeoutKey(t.field())));
        }
        return false;
    }

    private void killHolder() throws IOException {
        Target target = holder();
        if (target == null) {
            log.record(NOTE, "skip kill-holder: nobody held a lock");
            return;
        }
        WorkerProcess victim = target.worker();
        started(Fault.KILL_HOLDER, target.loop());
        long killedAt = System.nanoTime();
        victim.kill();
        log.record(Event.Type.EXITED, victim.id + " killed");
        long boundMs = settings.watchdogMs() + 3000;
        Long freedAfterMs = null;
        while (Duration.ofNanos(System.nanoTime() - killedAt).toMillis() < boundMs) {
            if (over(target)) {
                freedAfterMs = Duration.ofNanos(System.nanoTime() - killedAt).toMillis();
                break;
            }
            WorkerProcess.sleep(10);
        }
        if (freedAfterMs != null) {
            log.record(FREED, target.loop() + " " + freedAfterMs);
        } else {
            log.record(NOT_FREED, target.loop() + " still held " + boundMs + " ms after the kill");
        }
        workers.set(workers.indexOf(victim), replace.apply(victim));
        log.record(FAULT_END, Fault.KILL_HOLDER.label());
    }

    /**
     * Freezes the JVM of a holder for longer than its lease. The hold found may end between the look and the
     * signal, or not be one yet in its loop's log (a multi-lock with some members taken, a reply not yet logged):
     * then the JVM is resumed at once (a freeze of milliseconds, no fault) and another holder is sought, up
     * to 5 times, so that the pause catches a holder ({@link Checker.Invariant#PAUSED_HOLDER_LEARNS} must judge one).
     * The fault's start is stamped before the signal that caught the holder.
     */
    private void pauseHolder() throws IOException {
        Target target = null;
        WorkerProcess victim = null;
        long stoppedAt = 0;
        for (int attempt = 0; attempt < 5 && victim == null; attempt++) {
            target = holder();
            if (target == null) {
                break;
            }
            stoppedAt = System.nanoTime();
            target.worker().signal("STOP");
            if (!over(target) && target.worker().loggedInsideSince(target.loop(), stoppedAt)) {
                victim = target.worker();
            } else {
                target.worker().signal("CONT");
                log.record(NOTE, "pause-holder: " + target.loop() + "'s hold ended before the stop, or its loop had not"
                        + " logged it yet (a multi-lock half taken); another holder");
            }
        }
        if (victim == null) {
            log.record(NOTE, "skip pause-holder: no holder stayed one until the stop");
            return;
        }
        long pauseMs = settings.watchdogMs() + 1000;
        injected.merge(Fault.PAUSE_HOLDER, 1, Integer::sum);
        log.write(new Event(stoppedAt, "nemesis", FAULT_START, Event.NO_TOKEN, Fault.PAUSE_HOLDER.label() + " "
                + target.loop()));
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
        redisSleep(ms, Fault.DEBUG_SLEEP.label());
        log.record(FAULT_END, Fault.DEBUG_SLEEP.label());
    }

    /**
     * {@code DEBUG SLEEP ms}: Redis answers nothing for {@code ms}. It slept from some moment in
     * [sent, answered - ms], so certainly during [answered - ms, sent + ms]: that window, when not empty, is logged
     * as REDIS_DOWN {@code what} to REDIS_UP, and no more of it.
     */
    private void redisSleep(long ms, String what) throws IOException {
        long sent = System.nanoTime();
        admin.call(Duration.ofMillis(ms + 5000), "DEBUG", "SLEEP",
                String.format(java.util.Locale.ROOT, "%.3f", ms / 1000.0));
        long answered = System.nanoTime();
        long from = answered - ms * 1_000_000L;
        long until = sent + ms * 1_000_000L;
        if (until - from > 0) {
            log.write(new Event(from, "nemesis", REDIS_DOWN, Event.NO_TOKEN, what));
            log.write(new Event(until, "nemesis", REDIS_UP, Event.NO_TOKEN, what));
        }
    }

    /** How many stalls shorter than the command timeout one command-stall fault makes. */
    private static final int SHORT_STALLS = 5;

    /**
     * {@value #SHORT_STALLS} stalls shorter than the client's command timeout (a third to five sixths of it), each followed by a pause,
     * then one longer (the timeout plus 300 ms to twice the timeout, below the lease; begun just before a latch round,
     * see {@link #untilLatchRoundIsNear}): each its own silent window (REDIS_DOWN
     * {@code command-stall short|long <ms>} to REDIS_UP), within one fault window.
     */
    private void stallCommands() throws IOException {
        long timeout = settings.commandTimeoutMs();
        long shortMs = timeout / 3 + random.nextInt((int) Math.max(1, timeout / 2));
        long longMs = timeout + 300 + random.nextInt((int) Math.max(1, timeout - 300));
        started(Fault.COMMAND_STALL, "redis " + shortMs + " ms then " + longMs + " ms (command timeout " + timeout
                + " ms) by " + (debug ? "DEBUG SLEEP" : "SIGSTOP"));
        try {
            // five short stalls, so that each family kind (whose loops also pause between calls) is likely to have a
            // call in flight during one of them: ChaosIT requires every kind to meet a short stall (with two, the
            // latch's loops, idle for up to a second between calls, met none in one run of four; with three, in one
            // CI run of stop 37)
            for (int i = 0; i < SHORT_STALLS; i++) {
                stall(shortMs, "short", debug);
                WorkerProcess.sleep(300 + random.nextInt(300));
            }
            untilLatchRoundIsNear();
            stall(longMs, "long", debug);
        } finally {
            log.record(FAULT_END, Fault.COMMAND_STALL.label());
        }
    }

    /**
     * Waits until {@value #BEFORE_LATCH_ROUND_MS} ms before the next latch round begins ({@link LatchLoop}'s rounds
     * are aligned to {@code System.nanoTime()}, one clock for every process of this host), so that a stall begun now
     * holds back the round's set-up calls: ChaosIT requires every family kind to meet a long stall, and the latch's
     * loops may be idle for over a second of a round once its latch opened (one CI run of stop 47 met none).
     */
    private static void untilLatchRoundIsNear() {
        long round = Workload.LATCH_ROUND_MS * 1_000_000L;
        long next = (Math.floorDiv(System.nanoTime(), round) + 1) * round;
        long left = (next - BEFORE_LATCH_ROUND_MS * 1_000_000L - System.nanoTime()) / 1_000_000L;
        if (left > 0) {
            WorkerProcess.sleep(left);
        }
    }

    /** How long before a latch round's start the long command stall begins. */
    private static final long BEFORE_LATCH_ROUND_MS = 100;

    private void stall(long ms, String which, boolean debug) throws IOException {
        String what = Fault.COMMAND_STALL.label() + " " + which + " " + ms;
        if (!debug) {
            redis.pause();
            log.record(REDIS_DOWN, what);
            try {
                WorkerProcess.sleep(ms);
            } finally {
                log.record(REDIS_UP, what);
                redis.resume();
            }
            return;
        }
        redisSleep(ms, what);
    }

    /**
     * Holds back every script (so releases sent meanwhile wait in Redis), cuts the workers' connections just before
     * the pause ends, then watches every hold that was in Redis at the cut: each must be over within a lease plus
     * 1 s plus the longest critical section (a release that failed leaves a hold that is no longer renewed).
     */
    private void dropReleases() throws IOException {
        boolean pastTimeout = random.nextBoolean();
        long ms = pastTimeout ? settings.commandTimeoutMs() + 200 + random.nextInt(400)
                : 150 + random.nextInt((int) Math.max(1, settings.commandTimeoutMs() - 250));
        started(Fault.RELEASE_DROP, "redis " + ms + " ms" + (pastTimeout ? " past the command timeout" : ""));
        long sent = System.nanoTime();
        admin.call("CLIENT", "PAUSE", Long.toString(ms), "WRITE");
        log.record(REDIS_DOWN, Fault.RELEASE_DROP.label());
        List<Target> present = new ArrayList<>();
        try {
            long cutAt = sent + (ms - 80) * 1_000_000L;
            WorkerProcess.sleep(Math.max(0, Duration.ofNanos(cutAt - System.nanoTime()).toMillis()));
            for (Workload kind : Workload.values()) {
                present.addAll(holds(kind)); // reads are not paused
            }
            long killedAt = System.nanoTime();
            Object killed = admin.call("CLIENT", "KILL", "TYPE", "normal");
            log.write(new Event(killedAt, "nemesis", CONNECTIONS_KILLED, Event.NO_TOKEN,
                    killed + " connections, " + present.size() + " holds in Redis"));
        } finally {
            // Redis lifts the pause by itself at sent + ms; under load this thread may get here later than that, and
            // requests answered in between must not count as answered "while Redis could not answer"
            long pauseEnds = sent + ms * 1_000_000L;
            long now = System.nanoTime();
            log.write(new Event(now - pauseEnds > 0 ? pauseEnds : now, "nemesis", REDIS_UP, Event.NO_TOKEN,
                    Fault.RELEASE_DROP.label()));
            admin.call("CLIENT", "UNPAUSE");
            log.record(FAULT_END, Fault.RELEASE_DROP.label());
        }
        long watchedFrom = System.nanoTime();
        long boundMs = settings.graceMs() + 3 * settings.stepMaxMs() + 500;
        List<Target> left = new ArrayList<>(present);
        Map<Target, Long> mostHolds = new java.util.HashMap<>();
        while (!left.isEmpty() && Duration.ofNanos(System.nanoTime() - watchedFrom).toMillis() < boundMs) {
            for (Target t : List.copyOf(left)) {
                Object count = admin.call("HGET", t.key(), t.field());
                if (count != null) {
                    mostHolds.merge(t, Long.parseLong(count.toString()), Math::max);
                }
                if (over(t)) {
                    left.remove(t);
                    log.record(RELEASE_FREED, t.loop() + " "
                            + Duration.ofNanos(System.nanoTime() - watchedFrom).toMillis());
                }
            }
            WorkerProcess.sleep(2);
        }
        for (Target t : left) {
            log.record(RELEASE_NOT_FREED, t.loop() + " field " + t.field() + " of " + t.key()
                    + " still held " + boundMs + " ms after the connections were cut: "
                    + admin.call("HGET", t.key(), t.field()) + " hold(s) now, at most "
                    + mostHolds.getOrDefault(t, 0L) + " seen, pttl " + admin.call("PTTL", t.key()));
        }
    }

    /** Whether {@code CLIENT PAUSE … WRITE} and {@code CLIENT UNPAUSE} (Redis 6.2) are available. */
    static boolean writePauseAllowed(RedisServer redis, EventLog log) {
        try {
            RedisAdmin admin = new RedisAdmin(redis.host(), redis.port());
            admin.call("CLIENT", "PAUSE", "1", "WRITE");
            admin.call("CLIENT", "UNPAUSE");
            return true;
        } catch (IOException e) {
            log.record(NOTE, "skip release-drop: this redis-server refuses CLIENT PAUSE WRITE (" + e.getMessage()
                    + ")");
            return false;
        }
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
