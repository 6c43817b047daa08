package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.LockInfo;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * {@code dlock demo}: six short scenarios, each with explicit checks, against an embedded (or given) Redis. Child
 * JVMs run {@link DemoWorker}; they, the clients and the embedded Redis are cleaned up on every exit (a shutdown
 * hook covers Ctrl-C).
 */
final class Demo {
    private static final int JVMS = 2;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 50;
    private static final long SHORT_WATCHDOG_MS = 2000;
    private static final long HOLD_MS = 5000;
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(30);
    private static final long LEASE = DistributedLock.LEASE_WATCHDOG;

    private final String externalUri;
    private final PrintStream out;
    private final String prefix = "dlock-demo:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final List<Process> children = new CopyOnWriteArrayList<>();
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private volatile RedisServer server;
    private volatile RedisClient raw;
    private String uri;
    private int passed;
    private int failed;
    private List<String> checks;

    /** @param externalUri the {@code --redis} to use, or null to start a Redis */
    Demo(String externalUri, PrintStream out) {
        this.externalUri = externalUri;
        this.out = out;
    }

    int run() {
        long start = System.nanoTime();
        Thread hook = new Thread(this::cleanUp, "dlock-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            connect();
            scenario("1. Mutual exclusion: " + JVMS + " JVMs x " + THREADS + " threads, " + ITERATIONS
                    + " increments each, one lock", this::mutualExclusion);
            scenario("2. Reentrancy: the holder takes the lock again", this::reentrancy);
            scenario("3. Watchdog: a " + DurationText.formatMillis(SHORT_WATCHDOG_MS) + " lease kept alive for a "
                    + DurationText.formatMillis(HOLD_MS) + " hold", this::watchdog);
            scenario("4. Crash: the holder JVM is killed (SIGKILL); its lock comes back after its lease",
                    this::holderKilled);
            scenario("5. Fair lock: granted in arrival order (FIFO)", this::fairLock);
            scenario("6. Read-write lock: readers share, a writer waits for them", this::readWriteLock);
            out.println();
            out.printf(Locale.ROOT, "dlock demo: %d passed, %d failed, in %s%n", passed, failed,
                    DurationText.formatMillis(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
            return failed == 0 ? ExitCodes.OK : ExitCodes.FAILED;
        } finally {
            cleanUp();
            out.flush();
        }
    }

    private void connect() {
        if (externalUri == null) {
            try {
                // servers that earlier demos left behind when their JVM was killed (kill -9): the same clean-up as
                // the test kit's; it never touches servers of running JVMs
                RedisServer.reapOrphans();
                server = RedisServer.start();
            } catch (RuntimeException e) {
                throw new CliException(ExitCodes.UNAVAILABLE, "cannot start a redis-server for the demo: "
                        + e.getMessage() + " (install redis-server, set $REDIS_SERVER, or pass --redis URI)", e);
            }
            uri = server.uri();
            out.println("dlock demo: started redis-server " + server.version() + " at " + uri
                    + " (stopped when the demo ends)");
        } else {
            uri = externalUri;
            try {
                LockClient.connect(uri).close(); // fail early, with the usual message, when Redis is not there
                out.println("dlock demo: using Redis at " + RedisUris.redact(uri) + ", keys " + prefix + "*");
            } catch (LockException e) {
                throw new CliException(ExitCodes.UNAVAILABLE, e.getMessage(), e);
            }
        }
        raw = RedisClient.create(uri);
        out.println("Holders are shown as <client id>:<owner id>, client ids cut to 8 characters.");
    }

    // ---- scenarios ----

    private boolean mutualExclusion() throws Exception {
        String lockName = prefix + "counter-lock";
        String counter = prefix + "counter";
        say("each increment is a GET then a SET of the key '" + counter + "' under lock '" + lockName + "':");
        say("without the lock, concurrent increments would overwrite each other");
        List<Child> workers = new ArrayList<>();
        for (int i = 0; i < JVMS; i++) {
            workers.add(startChild("count", uri, lockName, counter, Integer.toString(THREADS),
                    Integer.toString(ITERATIONS)));
        }
        for (Child w : workers) {
            w.await("READY", CHILD_TIMEOUT);
        }
        long go = System.nanoTime();
        for (Child w : workers) {
            w.send("GO");
        }
        int total = 0;
        int overlaps = 0;
        StringBuilder perJvm = new StringBuilder();
        for (Child w : workers) {
            String[] done = w.await("DONE ", CHILD_TIMEOUT).split(" ");
            total += Integer.parseInt(done[1]);
            overlaps += Integer.parseInt(done[2]);
            perJvm.append(perJvm.length() == 0 ? "" : ", ").append("JVM ").append(w.process.pid()).append(": ")
                    .append(done[1]).append(" increments");
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - go);
        boolean exited = true;
        for (Child w : workers) {
            exited &= w.process.waitFor(10, TimeUnit.SECONDS) && w.process.exitValue() == 0;
        }
        say(perJvm + ", in " + DurationText.formatMillis(tookMs));
        long expected = (long) JVMS * THREADS * ITERATIONS;
        String value;
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            value = c.sync().get(counter);
            c.sync().del(counter, counter + ":inside");
        }
        check("counter = " + value + " (expected " + expected + ")", String.valueOf(expected).equals(value)
                && total == expected);
        check("never two holders inside at once (" + overlaps + " overlaps seen)", overlaps == 0);
        check("both worker JVMs finished cleanly", exited);
        return true;
    }

    private boolean reentrancy() {
        LockClient a = newClient(null);
        LockClient b = newClient(null);
        String name = prefix + "reentrant";
        DistributedLock lock = a.getLock(name);
        lock.lock();
        lock.lock();
        LockInfo info = a.inspect(name);
        say("lock() twice by one thread    -> " + LockInfoFormat.summary(info));
        check("hold count 2", info.holders().size() == 1 && info.holders().get(0).holdCount() == 2);
        check("another client's tryLock() fails meanwhile", !b.getLock(name).tryLock());
        lock.unlock();
        info = a.inspect(name);
        say("unlock() once                 -> " + LockInfoFormat.summary(info));
        check("still held after one unlock (hold count 1)", info.holders().size() == 1
                && info.holders().get(0).holdCount() == 1 && lock.isHeldByCurrentThread());
        lock.unlock();
        info = a.inspect(name);
        say("unlock() again                -> " + LockInfoFormat.summary(info));
        check("free after as many unlocks as locks", info.type() == LockInfo.Type.NONE);
        return true;
    }

    private boolean watchdog() throws InterruptedException {
        LockClient holder = newClient(Duration.ofMillis(SHORT_WATCHDOG_MS));
        LockClient other = newClient(null);
        AtomicInteger lost = new AtomicInteger();
        holder.addLeaseLostListener(event -> lost.incrementAndGet());
        String name = prefix + "watchdog";
        DistributedLock lock = holder.getLock(name);
        say("lock() with a watchdog lease of " + DurationText.formatMillis(SHORT_WATCHDOG_MS)
                + ", renewed every third of it; holding " + DurationText.formatMillis(HOLD_MS) + ":");
        long start = System.nanoTime();
        lock.lock();
        boolean heldThroughout = true;
        long maxTtl = 0;
        for (int second = 1; second * 1000L <= HOLD_MS; second++) {
            sleepUntil(start, second * 1000L);
            LockInfo info = holder.inspect(name);
            boolean held = info.holders().stream().anyMatch(h -> h.clientId().equals(holder.getId()));
            heldThroughout &= held;
            maxTtl = Math.max(maxTtl, info.ttlMillis());
            say(String.format(Locale.ROOT, "  t=%ds  %s, ttl %s", second, held ? "held" : "NOT HELD",
                    LockInfoFormat.ttl(info.ttlMillis())));
        }
        check("held for " + DurationText.formatMillis(HOLD_MS) + ", " + (HOLD_MS / (double) SHORT_WATCHDOG_MS)
                + "x the lease, with the TTL never above the lease", heldThroughout && maxTtl <= SHORT_WATCHDOG_MS);
        check("another client still cannot take it", !other.getLock(name).tryLock());
        check("no lease-lost notification", lost.get() == 0);
        lock.unlock();
        return true;
    }

    private boolean holderKilled() throws Exception {
        String name = prefix + "crash";
        LockClient client = newClient(null);
        Child holder = startChild("hold", uri, name, Long.toString(SHORT_WATCHDOG_MS));
        String[] locked = holder.await("LOCKED ", CHILD_TIMEOUT).split(" ");
        LockInfo info = client.inspect(name);
        say("JVM " + holder.process.pid() + " took the lock (watchdog " + DurationText.formatMillis(SHORT_WATCHDOG_MS)
                + ") -> " + LockInfoFormat.summary(info));
        check("held by the child JVM", info.holders().size() == 1
                && info.holders().get(0).clientId().equals(locked[1]));
        DistributedLock lock = client.getLock(name);
        check("busy for us while it lives", !lock.tryLock());
        holder.process.destroyForcibly(); // SIGKILL: no unlock, no more renewals
        long killed = System.nanoTime();
        holder.process.waitFor(10, TimeUnit.SECONDS);
        say("kill -9 " + holder.process.pid() + "; waiting for the lock ...");
        boolean acquired = lock.tryLock(10, TimeUnit.SECONDS);
        long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        if (acquired) {
            say("acquired " + afterMs + " ms after the kill -> "
                    + LockInfoFormat.summary(client.inspect(name)));
            lock.unlock();
        }
        check("recovered when the dead holder's lease ran out (" + afterMs + " ms after the kill; lease "
                + SHORT_WATCHDOG_MS + " ms, + 1 s margin)", acquired && afterMs <= SHORT_WATCHDOG_MS + 1000);
        return true;
    }

    private boolean fairLock() throws Exception {
        LockClient client = newClient(null);
        String name = prefix + "fair";
        DistributedLock fair = client.getFairLock(name); // UnsupportedOperationException until it lands
        long first = 100;
        say("owner " + first + " takes '" + name + "'; then owners 1, 2, 3, 4 ask for it, one after the other");
        check("owner " + first + " holds it", fair.tryLockAsync(0, LEASE, MILLISECONDS, first).get(5,
                TimeUnit.SECONDS));
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            waiters.add(fair.lockAsync(LEASE, MILLISECONDS, i));
            int queued = i;
            try {
                Await.until(Duration.ofSeconds(5), () -> client.inspect(name).waiters().size() >= queued,
                        "owner " + i + " queued");
            } catch (IllegalStateException e) {
                check("owner " + i + " shows up in the queue", false);
                return false;
            }
        }
        say("queue: " + LockInfoFormat.queue(client.inspect(name)));
        fair.unlockAsync(first).get(5, TimeUnit.SECONDS);
        List<String> order = new ArrayList<>();
        boolean inOrder = true;
        for (int i = 1; i <= 4; i++) {
            CompletableFuture<Void> next = waiters.get(i - 1);
            try {
                next.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                check("owner " + i + " gets the lock after owner " + (i - 1), false);
                return false;
            }
            order.add(Integer.toString(i));
            for (int j = i + 1; j <= 4; j++) {
                inOrder &= !waiters.get(j - 1).isDone();
            }
            fair.unlockAsync(i).get(5, TimeUnit.SECONDS);
        }
        say("owner " + first + " releases; granted to owners " + String.join(", then ", order));
        check("granted in arrival order, each while the later ones still waited", inOrder);
        return true;
    }

    private boolean readWriteLock() throws Exception {
        LockClient r1 = newClient(null);
        LockClient r2 = newClient(null);
        LockClient w = newClient(null);
        String name = prefix + "rw";
        DistributedReadWriteLock rw1 = r1.getReadWriteLock(name); // UnsupportedOperationException until it lands
        DistributedReadWriteLock rw2 = r2.getReadWriteLock(name);
        DistributedReadWriteLock rwW = w.getReadWriteLock(name);
        boolean read1 = rw1.readLock().tryLockAsync(0, LEASE, MILLISECONDS, 1).get(5, TimeUnit.SECONDS);
        boolean read2 = rw2.readLock().tryLockAsync(0, LEASE, MILLISECONDS, 1).get(5, TimeUnit.SECONDS);
        say("two readers (two clients) -> " + LockInfoFormat.summary(r1.inspect(name)));
        check("both readers hold it at once", read1 && read2 && r1.inspect(name).holders().size() == 2);
        CompletableFuture<Void> writer = rwW.writeLock().lockAsync(LEASE, MILLISECONDS, 1);
        boolean waited = holdsFor(() -> !writer.isDone(), Duration.ofMillis(500));
        say("a writer asks for it        -> still " + LockInfoFormat.summary(r1.inspect(name)));
        check("the writer waits while readers hold it", waited);
        rw1.readLock().unlockAsync(1).get(5, TimeUnit.SECONDS);
        boolean stillWaiting = holdsFor(() -> !writer.isDone(), Duration.ofMillis(300));
        say("first reader releases       -> " + LockInfoFormat.summary(r1.inspect(name)));
        check("the writer still waits for the second reader", stillWaiting);
        long released = System.nanoTime();
        rw2.readLock().unlockAsync(1).get(5, TimeUnit.SECONDS);
        boolean got;
        try {
            writer.get(5, TimeUnit.SECONDS);
            got = true;
        } catch (java.util.concurrent.TimeoutException e) {
            got = false;
        }
        long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        say("second reader releases      -> " + LockInfoFormat.summary(r1.inspect(name)));
        check("the writer gets it once the last reader left (" + DurationText.formatMillis(afterMs) + " later)", got);
        if (got) {
            rwW.writeLock().unlockAsync(1).get(5, TimeUnit.SECONDS);
        }
        return true;
    }

    // ---- plumbing ----

    private interface Scenario {
        boolean run() throws Exception;
    }

    private void scenario(String title, Scenario scenario) {
        out.println();
        out.println(title);
        checks = new ArrayList<>();
        long start = System.nanoTime();
        String verdict;
        try {
            boolean completed = scenario.run();
            boolean ok = completed && !checks.isEmpty() && checks.stream().noneMatch(c -> c.startsWith("FAIL"));
            verdict = ok ? "PASS" : "FAIL";
        } catch (Exception e) {
            say("error: " + Main.oneLine(String.valueOf(e)));
            if (Logging.isVerbose()) {
                e.printStackTrace(out);
            }
            verdict = "FAIL";
        } finally {
            closeClients();
            stopChildren();
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (verdict.equals("PASS")) {
            passed++;
        } else {
            failed++;
        }
        out.println("   => " + verdict + "  (" + DurationText.formatMillis(ms) + ")");
        out.flush();
    }

    private static final java.util.regex.Pattern UUID_TEXT = java.util.regex.Pattern.compile(
            "\\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b");

    /** Prints a line of the story; client ids (UUIDs) are cut to their first 8 characters. */
    private void say(String line) {
        out.println("   " + UUID_TEXT.matcher(line).replaceAll("$1"));
        out.flush();
    }

    private void check(String what, boolean ok) {
        checks.add((ok ? "ok" : "FAIL") + " " + what);
        out.println("   " + (ok ? "ok    " : "FAIL  ") + what);
        out.flush();
    }

    private LockClient newClient(Duration watchdog) {
        LockClientConfig.Builder b = LockClientConfig.builder().redisUri(uri);
        if (watchdog != null) {
            b.watchdogTimeout(watchdog);
        }
        LockClient client = LockClient.create(b.build());
        clients.add(client);
        return client;
    }

    private void closeClients() {
        for (LockClient client : clients) {
            client.close();
        }
        clients.clear();
    }

    /** A child JVM running {@link DemoWorker}, with its stdout lines in a queue. */
    private final class Child {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final OutputStream stdin;

        Child(Process process) {
            this.process = process;
            this.stdin = process.getOutputStream();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // the child is gone
                }
            }, "demo-child-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        String await(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line != null && line.startsWith(prefix)) {
                    return line;
                }
                if (line == null && (System.nanoTime() >= deadline || !process.isAlive() && lines.isEmpty())) {
                    throw new IllegalStateException("JVM " + process.pid() + " did not say '" + prefix.strip()
                            + "' (" + (process.isAlive() ? "timed out" : "exited with " + process.exitValue()) + ")");
                }
            }
        }

        void send(String line) throws IOException {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        }
    }

    private Child startChild(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DemoWorker.class.getName());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(process);
        return new Child(process);
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    private void stopChildren() {
        for (Process p : children) {
            p.destroyForcibly();
        }
        for (Process p : children) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        children.clear();
    }

    /** Idempotent; also the shutdown hook (Ctrl-C): child JVMs, clients, the embedded Redis. */
    private synchronized void cleanUp() {
        stopChildren();
        closeClients();
        RedisClient r = raw;
        raw = null;
        if (r != null) {
            r.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        RedisServer s = server;
        server = null;
        if (s != null) {
            s.close();
        }
    }

    /** @return whether {@code condition} stayed true, checked every 10 ms, for {@code duration} */
    private static boolean holdsFor(Await.Condition condition, Duration duration) {
        try {
            Await.during(duration, condition, "condition holds");
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private static void sleepUntil(long startNanos, long offsetMs) throws InterruptedException {
        long left = startNanos + TimeUnit.MILLISECONDS.toNanos(offsetMs) - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
