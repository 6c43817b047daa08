package io.dlock.chaos;

import io.dlock.redisprocess.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static io.dlock.chaos.Event.Type.EXITED;
import static io.dlock.chaos.Event.Type.HUNG;
import static io.dlock.chaos.Event.Type.LEFTOVER;
import static io.dlock.chaos.Event.Type.NOTE;

/**
 * One chaos run: starts the locks' {@code redis-server} (the one that is faulted), the {@link FencingStorage}, the
 * worker JVMs (each with several owners contending for the lock of every {@link Workload}) and the {@link Nemesis};
 * stops everything; checks that nothing was left behind; and hands every event to the {@link Checker}.
 *
 * <p>Files in {@link ChaosSettings#outDir()}: {@code w<n>.events} (each worker JVM's start and stop),
 * {@code w<n>-<kind>-t<i>.events} (the history of one of its loops on one lock kind), {@code w<n>.out/.err},
 * {@code nemesis.events}, {@code store.events}, {@code report.txt}, and {@code classpath/} (a copy of dlock's own
 * classes, which the workers run).
 */
public final class ChaosRun {
    private final ChaosSettings settings;
    private final Path out;
    private final Path stopFile;
    private final AtomicInteger nextWorker = new AtomicInteger();
    private String classPath;
    private final List<WorkerProcess> everyWorker = Collections.synchronizedList(new ArrayList<>());

    public ChaosRun(ChaosSettings settings) {
        this.settings = settings;
        this.out = settings.outDir().toAbsolutePath();
        this.stopFile = out.resolve("stop");
    }

    /** Runs, checks and returns the report; never leaves a process behind, even when it fails. */
    public Report run() {
        prepareOutDir();
        classPath = WorkerProcess.snapshotClassPath(out.resolve("classpath"));
        long startedAt = System.nanoTime();
        RedisServer redis = null;
        FencingStorage storage = null;
        String redisVersion = "?";
        Map<Fault, Integer> injected = Map.of();
        try (EventLog nemesisLog = EventLog.create(out.resolve("nemesis.events"), "nemesis");
             EventLog storeLog = EventLog.create(out.resolve("store.events"), "store")) {
            nemesisLog.record(NOTE, "seed " + settings.seed() + ", " + settings.workers() + " workers x "
                    + settings.threads() + " threads per lock kind, local hand-offs " + settings.localHandoffs()
                    + ", watchdog " + settings.watchdogMs() + " ms, command timeout " + settings.commandTimeoutMs()
                    + " ms");
            redis = startRedis(nemesisLog);
            redisVersion = redis.version();
            Set<Fault> faults = faultsAsked(nemesisLog);
            boolean debug = Nemesis.debugAllowed(redis, nemesisLog);
            if (!debug) {
                faults.remove(Fault.DEBUG_SLEEP);
            }
            if (!Nemesis.writePauseAllowed(redis, nemesisLog)) {
                faults.remove(Fault.RELEASE_DROP);
            }
            storage = FencingStorage.start(storeLog);
            List<WorkerProcess> live = Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < settings.workers(); i++) {
                live.add(startWorker(redis, storage));
            }
            for (WorkerProcess w : List.copyOf(live)) {
                checkClock(w.awaitHello(Duration.ofSeconds(30)), startedAt);
            }
            RedisServer server = redis;
            int storePort = storage.port();
            Nemesis nemesis = new Nemesis(settings, redis, live, dead -> {
                // the replacement says HELLO while the nemesis goes on: a JVM start on a loaded machine takes
                // seconds, which the run's fault budget (every kind at least once in the short mode) cannot spare
                WorkerProcess fresh = startWorker(server, storePort);
                Thread hello = new Thread(() -> {
                    try {
                        fresh.awaitHello(Duration.ofSeconds(30));
                    } catch (RuntimeException e) {
                        nemesisLog.record(NOTE, "replacement worker " + fresh.id + " did not start: " + e);
                    }
                }, "hello-" + fresh.id);
                hello.setDaemon(true);
                hello.start();
                return fresh;
            }, nemesisLog, faults, debug);
            injected = nemesis.run(System.nanoTime() + settings.duration().toNanos());

            stopWorkers(live, nemesisLog);
            recordPermitStates(redis, nemesisLog);
            List<WorkerProcess> killed = new ArrayList<>(everyWorker);
            killed.removeAll(live);
            checkRedisLeftovers(redis, killed, nemesisLog);
            storage.close();
            redis.close();
            checkProcessLeftovers(nemesisLog);
        } finally {
            killEverything(storage, redis);
        }
        List<Event> events = new ArrayList<>();
        try (Stream<Path> files = Files.list(out)) {
            files.filter(p -> p.getFileName().toString().endsWith(".events")).forEach(p ->
                    events.addAll(EventLog.read(p)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the event logs in " + out, e);
        }
        Report report = new Checker(settings.bounds()).check(events, injected, settings, redisVersion,
                Duration.ofNanos(System.nanoTime() - startedAt));
        try {
            Files.writeString(out.resolve("report.txt"), report.table());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report", e);
        }
        return report;
    }

    /**
     * Every fault kind, or only those of the {@code chaos.faults} property ({@code -Dchaos.faults=command-stall,
     * debug-sleep}: a comma-separated list of labels), for a reproduction. A run with only some faults leaves the
     * invariants about the others without a case, so it fails for that reason too: read its report.
     */
    private static Set<Fault> faultsAsked(EventLog log) {
        String asked = System.getProperty("chaos.faults", "").strip();
        if (asked.isEmpty() || asked.startsWith("${")) {
            return EnumSet.allOf(Fault.class);
        }
        Set<Fault> faults = EnumSet.noneOf(Fault.class);
        for (String label : asked.split(",")) {
            faults.add(Fault.ofLabel(label.strip()));
        }
        log.record(NOTE, "faults limited to " + faults + " (chaos.faults)");
        return faults;
    }

    private void prepareOutDir() {
        try {
            Files.createDirectories(out);
            try (Stream<Path> old = Files.walk(out)) {
                List<Path> paths = old.sorted(Comparator.reverseOrder()).toList();
                for (Path p : paths) {
                    if (!p.equals(out)) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + out, e);
        }
    }

    /**
     * The faulted Redis. Redis 7 refuses {@code DEBUG} unless started with {@code enable-debug-command yes}; older
     * servers do not know that option and fail to start with it, so it is tried first and dropped if refused.
     */
    private static RedisServer startRedis(EventLog log) {
        RedisServer.reapOrphans(); // servers of earlier runs whose JVM was killed; never those of running JVMs
        try {
            return RedisServer.builder().config("enable-debug-command", "yes").start();
        } catch (IllegalStateException refused) {
            log.record(NOTE, "redis-server does not take enable-debug-command; started without it");
            return RedisServer.builder().start();
        }
    }

    private WorkerProcess startWorker(RedisServer redis, FencingStorage storage) {
        return startWorker(redis, storage.port());
    }

    private WorkerProcess startWorker(RedisServer redis, int storePort) {
        int n = nextWorker.incrementAndGet();
        WorkerProcess w = WorkerProcess.start("w" + n, out, classPath, redis.uri(), storePort, settings, stopFile,
                settings.seed() * 31 + n);
        everyWorker.add(w);
        return w;
    }

    /** Every process must stamp events on the same monotonic clock as this one (true on Linux). */
    private static void checkClock(Event hello, long startedAt) {
        long now = System.nanoTime();
        if (hello.nanos() - startedAt < 0 || hello.nanos() - now > 0) {
            throw new IllegalStateException("worker " + hello.source() + " stamps events on another clock ("
                    + hello.nanos() + " not within " + startedAt + ".." + now + "): System.nanoTime() is not shared"
                    + " between processes on this system, so the run's histories cannot be compared");
        }
    }

    private void stopWorkers(List<WorkerProcess> live, EventLog log) {
        try {
            Files.writeString(stopFile, "stop");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + stopFile, e);
        }
        Duration bound = Duration.ofMillis(Worker.WAIT_MS + Worker.LISTENER_WAIT_MS + 4 * settings.commandTimeoutMs()
                + 5000);
        for (WorkerProcess w : List.copyOf(live)) {
            if (w.awaitExit(bound)) {
                log.record(EXITED, w.id + " " + w.process.exitValue());
            } else {
                log.record(HUNG, w.id + " did not stop within " + bound.toMillis() + " ms; killed");
                w.kill();
            }
        }
    }

    /**
     * At quiescence (every worker stopped), once no leased permit is live any more (those of killed workers and of
     * failed releases end within a lease; waits up to the grace), records what each semaphore's keys hold
     * ({@code PERMITS_STATE}), for {@link ConservationChecks}.
     */
    private void recordPermitStates(RedisServer redis, EventLog log) {
        RedisAdmin admin = new RedisAdmin(redis.host(), redis.port());
        List<Workload> leased = List.of(Workload.LEASED, Workload.RX_LEASED);
        long deadline = System.nanoTime() + Duration.ofMillis(settings.graceMs()).toNanos();
        try {
            while (System.nanoTime() - deadline < 0) {
                long live = 0;
                for (Workload kind : leased) {
                    live += live(admin, permitTable(kind));
                }
                if (live == 0) {
                    break;
                }
                WorkerProcess.sleep(50);
            }
            log.record(Event.Type.PERMITS_STATE, ConservationChecks.state(Workload.SEMAPHORE,
                    count(admin.call("GET", Workload.SEMAPHORE.lockName())), null, null));
            for (Workload kind : leased) {
                String table = permitTable(kind);
                log.record(Event.Type.PERMITS_STATE, ConservationChecks.state(kind,
                        count(admin.call("GET", kind.lockName())), count(admin.call("ZCARD", table)),
                        live(admin, table)));
            }
        } catch (IOException | RuntimeException e) {
            log.record(NOTE, "cannot read the semaphores at quiescence: " + e);
        }
    }

    /** @return a leased semaphore's permit table */
    private static String permitTable(Workload kind) {
        return "{" + kind.lockName() + "}:timeout";
    }

    /** @return the leased permits in {@code table} whose lease has not ended by Redis' clock */
    private static long live(RedisAdmin admin, String table) throws IOException {
        Object time = admin.call("TIME");
        long nowMs = Long.parseLong(((List<?>) time).get(0).toString()) * 1000
                + Long.parseLong(((List<?>) time).get(1).toString()) / 1000;
        return count(admin.call("ZCOUNT", table, "(" + nowMs, "+inf"));
    }

    private static long count(Object reply) {
        return reply == null ? 0 : Long.parseLong(reply.toString());
    }

    /**
     * Holds of killed workers expire within a lease: after that (or a fair wait slot) only the fenced lock's token
     * counter may remain, and the fair queue's places of killed waiters in keys that expire ({@link FairQueueRemains}:
     * with every fair loop of the run in line, a place can last that many slots).
     */
    private void checkRedisLeftovers(RedisServer redis, List<WorkerProcess> killed, EventLog log) {
        RedisAdmin admin = new RedisAdmin(redis.host(), redis.port());
        long deadline = System.nanoTime()
                + Duration.ofMillis(Math.max(settings.graceMs(), Worker.FAIR_WAIT_TIMEOUT_MS + 1000)).toNanos();
        List<String> extra = List.of();
        List<String> channels = List.of();
        do {
            try {
                extra = strings(admin.call("KEYS", "*"));
                for (Workload kind : Workload.values()) {
                    extra.removeAll(kind.lastingKeys());
                }
                extra.remove("redisson_lock_token:{" + ElectionLoop.NAME + "}"); // the election's epochs, kept
                // the latch rounds' latches that never opened: each has its TTL, and goes by itself; so do a plain
                // semaphore's grant marks ({NAME}:dlock_grant:<id>, docs/protocol.md §13.1), which live 15 s
                for (String key : List.copyOf(extra)) {
                    if (key.startsWith(Workload.LATCH.lockName() + ":") && expiresBy(admin, key, Workload.LATCH_TTL_MS)
                            || key.contains(GRANT_MARK) && expiresBy(admin, key, GRANT_MARK_MS)) {
                        extra.remove(key);
                    }
                }
                channels = strings(admin.call("PUBSUB", "CHANNELS"));
            } catch (IOException e) {
                extra = List.of("<cannot list keys: " + e + ">");
            }
            if (extra.isEmpty() && channels.isEmpty()) {
                return;
            }
            WorkerProcess.sleep(50);
        } while (System.nanoTime() - deadline < 0);
        try {
            FairQueueRemains.Verdict queue = FairQueueRemains.judge(admin, extra, field -> killed.stream()
                    .filter(w -> w.owns(field)).findFirst().map(w -> w.loopOf(field)).orElse(null),
                    (everyWorker.size() * (long) settings.threads() + 2) * Worker.FAIR_WAIT_TIMEOUT_MS);
            if (queue != null) {
                extra.removeAll(FairQueueRemains.keys());
                log.record(queue.leak() ? LEFTOVER : NOTE, queue.why());
            }
        } catch (IOException e) {
            log.record(NOTE, "cannot read the fair queue's remains: " + e);
        }
        for (String key : extra) {
            log.record(LEFTOVER, "key " + key);
        }
        for (String channel : channels) {
            log.record(LEFTOVER, "subscription " + channel);
        }
    }

    /** What a plain semaphore's grant mark has in its name, and the longest it lives (the client's default). */
    private static final String GRANT_MARK = ":dlock_grant:";
    private static final long GRANT_MARK_MS = 15_000;

    /** @return whether {@code key} is gone or expires by itself within {@code limitMs} */
    private static boolean expiresBy(RedisAdmin admin, String key, long limitMs) throws IOException {
        Object pttl = admin.call("PTTL", key);
        long ms = pttl == null ? -2 : Long.parseLong(pttl.toString());
        return ms == -2 || ms > 0 && ms <= limitMs;
    }

    private static List<String> strings(Object reply) {
        List<String> values = new ArrayList<>();
        if (reply instanceof List<?> list) {
            for (Object o : list) {
                values.add(String.valueOf(o));
            }
        }
        return values;
    }

    /** After the servers and workers are gone, this JVM must have no child process left. */
    private void checkProcessLeftovers(EventLog log) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<ProcessHandle> left;
        do {
            left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
            if (left.isEmpty()) {
                return;
            }
            WorkerProcess.sleep(50);
        } while (System.nanoTime() - deadline < 0);
        for (ProcessHandle p : left) {
            log.record(LEFTOVER, "process " + p.pid() + " " + p.info().command().orElse("?"));
            p.destroyForcibly();
        }
    }

    /** Last resort (also after a failure): no worker, server or store survives the run. */
    private void killEverything(FencingStorage storage, RedisServer redis) {
        for (WorkerProcess w : List.copyOf(everyWorker)) {
            if (w.process.isAlive()) {
                try {
                    w.signal("CONT");
                } catch (RuntimeException ignored) {
                    // killing it anyway
                }
                w.kill();
            }
        }
        if (storage != null) {
            storage.close();
        }
        if (redis != null) {
            redis.close();
        }
    }
}
