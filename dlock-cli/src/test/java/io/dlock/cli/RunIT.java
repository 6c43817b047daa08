package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code dlock run}, the real jar against a real Redis. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class RunIT {
    private static final Duration PROMPTLY = Duration.ofSeconds(5); // far below the 30 s watchdog lease

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    @Test
    void runsTheCommandWithTheLockHeldAndExitsZero(RedisServer redis, LockClient client) {
        DlockProcess p = DlockProcess.run("run", "--redis", redis.uri(), "job",
                "--", "sh", "-c", "echo out; echo err >&2");
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).isEqualTo("out\n");
        assertThat(p.stderr()).isEqualTo("err\n");
        assertThat(client.inspect("job").type()).isEqualTo(LockInfo.Type.NONE);
    }

    @Test
    void theCommandSeesTheLockHeldByDlock(RedisServer redis, LockClient client) throws IOException {
        Path pid = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "job", "sh", "-c", "echo $PPID > " + pid + "; exec sleep 60");
        Await.until(PROMPTLY.multipliedBy(3), () -> Files.exists(pid), p::describe);
        LockInfo info = client.inspect("job");
        assertThat(info.holders()).hasSize(1);
        assertThat(info.holders().get(0).threadId()).as("owner id = pid of dlock").isEqualTo(p.process.pid());
        assertThat(info.ttlMillis()).isBetween(1L, 30_000L);
        p.kill();
    }

    @Test
    void passesTheCommandsExitCodeThrough(RedisServer redis, LockClient client) {
        DlockProcess p = DlockProcess.run("run", "--redis", redis.uri(), "job", "--", "sh", "-c", "exit 3");
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(3);
        assertThat(p.stderr()).isEmpty();
        assertThat(client.inspect("job").type()).isEqualTo(LockInfo.Type.NONE);
    }

    @Test
    void acceptsTheCommandWithoutDoubleDashAndTakesRedisFromTheEnvironment(RedisServer redis) {
        DlockProcess p = DlockProcess.start(Map.of("DLOCK_REDIS", redis.uri()), "run", "job", "echo", "a b")
                .waitFor(Duration.ofSeconds(30));
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).isEqualTo("a b\n");
    }

    @Test
    void busyLockWithWaitZeroExitsWithTheBusyCodeNamingTheHolder(RedisServer redis, LockClient client)
            throws IOException {
        DistributedLock lock = client.getLock("nightly-report");
        lock.lock();
        Path marker = dir.resolve("ran");
        DlockProcess p = DlockProcess.run("run", "--redis", redis.uri(), "--wait", "0", "nightly-report",
                "--", "touch", marker.toString());
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(75);
        assertThat(p.stderr().lines()).as(p.describe()).hasSize(1);
        assertThat(p.stderr()).startsWith("dlock: lock 'nightly-report' is busy: held by " + client.getId() + ":"
                + Thread.currentThread().getId());
        assertThat(p.stdout()).isEmpty();
        assertThat(marker).doesNotExist();

        DlockProcess custom = DlockProcess.run("run", "--redis", redis.uri(), "-w", "0", "-E", "9", "nightly-report",
                "--", "touch", marker.toString());
        assertThat(custom.exitCode()).as(custom.describe()).isEqualTo(9);

        DlockProcess quiet = DlockProcess.run("run", "--redis", redis.uri(), "--wait=0", "--quiet", "nightly-report",
                "--", "touch", marker.toString());
        assertThat(quiet.exitCode()).as(quiet.describe()).isEqualTo(75);
        assertThat(quiet.stderr()).isEmpty();
        assertThat(marker).doesNotExist();
        assertThat(client.inspect("nightly-report").holders()).hasSize(1);
        lock.unlock();
    }

    @Test
    void waitTimesOutWithTheBusyCode(RedisServer redis, LockClient client) {
        client.getLock("job").lock();
        long start = System.nanoTime();
        DlockProcess p = DlockProcess.run("run", "--redis", redis.uri(), "--wait", "700ms", "job", "--", "true");
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(75);
        assertThat(Await.millisSince(start)).isGreaterThanOrEqualTo(700);
        assertThat(p.stderr()).startsWith("dlock: timed out after 700ms waiting for lock 'job': held by "
                + client.getId());
    }

    @Test
    void missingOrUnrunnableCommandsExitLikeShells(RedisServer redis, LockClient client) {
        DlockProcess missing = DlockProcess.run("run", "--redis", redis.uri(), "job", "--", "no-such-command-xyz");
        assertThat(missing.exitCode()).as(missing.describe()).isEqualTo(127);
        assertThat(missing.stderr()).isEqualTo("dlock: cannot run 'no-such-command-xyz': No such file or directory\n");
        DlockProcess notExecutable = DlockProcess.run("run", "--redis", redis.uri(), "job", "--", dir.toString());
        assertThat(notExecutable.exitCode()).as(notExecutable.describe()).isEqualTo(126);
        assertThat(client.inspect("job").type()).as("released after the failed start").isEqualTo(LockInfo.Type.NONE);
    }

    @Test
    void concurrentRunsOnOneLockNeverOverlap(RedisServer redis) throws IOException {
        Path log = dir.resolve("log");
        int runs = 3;
        List<DlockProcess> all = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            String script = "echo \"start " + i + " $(date +%s%N)\" >> " + log + "; sleep 0.4; "
                    + "echo \"end " + i + " $(date +%s%N)\" >> " + log;
            all.add(start(redis, "run", "shared", "sh", "-c", script));
        }
        for (DlockProcess p : all) {
            p.waitFor(Duration.ofSeconds(45));
            assertThat(p.exitCode()).as(p.describe()).isZero();
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).as("one start and one end per run").hasSize(2 * runs);
        long previous = 0;
        for (int i = 0; i < lines.size(); i += 2) {
            String[] start = lines.get(i).split(" ");
            String[] end = lines.get(i + 1).split(" ");
            assertThat(start[0]).as("line %d of %s", i, lines).isEqualTo("start");
            assertThat(end[0]).as("line %d of %s", i + 1, lines).isEqualTo("end");
            assertThat(end[1]).as("the same run ends before another starts: %s", lines).isEqualTo(start[1]);
            long startNs = Long.parseLong(start[2]);
            long endNs = Long.parseLong(end[2]);
            assertThat(startNs).as("timestamps in order: %s", lines).isGreaterThanOrEqualTo(previous);
            assertThat(endNs).isGreaterThan(startNs);
            previous = endNs;
        }
    }

    @Test
    void forceUnlockWakesAWaitingRunPromptly(RedisServer redis, LockClient client) throws Exception {
        client.getLock("job").lock(); // a 30 s watchdog lease: only a wake-up makes the waiter run early
        Path marker = dir.resolve("ran");
        DlockProcess waiting = start(redis, "run", "--wait", "50s", "job", "touch", marker.toString());
        awaitSubscribers(redis, "redisson_lock__channel:{job}", 1, waiting);

        DlockProcess unlock = DlockProcess.run("unlock", "--redis", redis.uri(), "--force", "job");
        long released = System.nanoTime();
        assertThat(unlock.exitCode()).as(unlock.describe()).isZero();
        assertThat(unlock.stdout()).startsWith("released lock 'job', held by " + client.getId() + ":"
                + Thread.currentThread().getId());
        waiting.waitFor(PROMPTLY);
        assertThat(waiting.exitCode()).as(waiting.describe()).isZero();
        assertThat(Await.millisSince(released)).as("ms from the force-unlock to the waiter's exit").isLessThan(5000);
        assertThat(marker).exists();
    }

    @Test
    void sigtermReleasesTheLockPromptlyAndStopsTheCommand(RedisServer redis, LockClient client) throws Exception {
        Path pidFile = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "job", "sh", "-c", "echo $$ > " + pidFile + "; exec sleep 60");
        long childPid = awaitPid(pidFile, p);
        assertThat(client.inspect("job").holders()).hasSize(1);

        long signalled = System.nanoTime();
        p.process.destroy(); // SIGTERM
        Await.until(PROMPTLY, () -> client.inspect("job").type() == LockInfo.Type.NONE,
                () -> "the lock is still held: " + client.inspect("job") + "\n" + p.describe());
        assertThat(Await.millisSince(signalled)).as("ms from SIGTERM to release").isLessThan(5000);
        p.waitFor(PROMPTLY);
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(143);
        Await.until(PROMPTLY, () -> ProcessHandle.of(childPid).map(h -> !h.isAlive()).orElse(true),
                () -> "the command (pid " + childPid + ") still runs");
    }

    @Test
    void sigtermWhileWaitingLeavesNothingBehind(RedisServer redis, LockClient client) throws Exception {
        client.getLock("job").lock();
        DlockProcess p = start(redis, "run", "job", "true");
        awaitSubscribers(redis, "redisson_lock__channel:{job}", 1, p);
        p.process.destroy();
        p.waitFor(PROMPTLY);
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(143);
        assertThat(client.inspect("job").holders()).extracting(LockInfo.Holder::clientId)
                .containsExactly(client.getId());
    }

    @Test
    void lostLeaseStopsTheCommandAndExits76(RedisServer redis, LockClient client) throws Exception {
        Path pidFile = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "--watchdog", "3s", "--kill-after", "1s", "job",
                "sh", "-c", "echo $$ > " + pidFile + "; exec sleep 60");
        long childPid = awaitPid(pidFile, p);
        assertThat(client.getLock("job").forceUnlock()).isTrue();
        p.waitFor(Duration.ofSeconds(10));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("dlock: lost lock 'job' while the command was running: it was removed",
                "stopping the command");
        assertThat(p.stderr().lines()).as("one message, no library warning").hasSize(1);
        assertThat(ProcessHandle.of(childPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void lostLeaseWithWarnLetsTheCommandFinish(RedisServer redis, LockClient client) throws Exception {
        Path pidFile = dir.resolve("pid");
        Path go = dir.resolve("go");
        DlockProcess p = start(redis, "run", "--watchdog", "1s", "--on-lease-lost", "warn", "job", "sh", "-c",
                "echo $$ > " + pidFile + "; while [ ! -f " + go + " ]; do sleep 0.05; done; exit 4");
        awaitPid(pidFile, p);
        assertThat(client.getLock("job").forceUnlock()).isTrue();
        Await.until(Duration.ofSeconds(10), () -> p.stderr().contains("warning: lost lock 'job'"), p::describe);
        Files.writeString(go, "");
        p.waitFor(PROMPTLY);
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(4);
        assertThat(p.stderr()).contains("the command keeps running (--on-lease-lost warn)");
    }

    @Test
    void fixedLeaseHoldsTheLockWithoutRenewal(RedisServer redis, LockClient client) throws Exception {
        Path pidFile = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "--lease", "20s", "job", "sh", "-c",
                "echo $$ > " + pidFile + "; exec sleep 60");
        awaitPid(pidFile, p);
        long ttl = client.inspect("job").ttlMillis();
        assertThat(ttl).as("a 20 s lease, not the 30 s watchdog").isBetween(1L, 20_000L);
        p.process.destroy();
        p.waitFor(PROMPTLY);
    }

    @Test
    void theEndOfAFixedLeaseStopsTheCommand(RedisServer redis) throws Exception {
        Path pidFile = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "--lease", "1s", "job", "sh", "-c",
                "echo $$ > " + pidFile + "; exec sleep 60");
        long childPid = awaitPid(pidFile, p);
        p.waitFor(Duration.ofSeconds(10));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("dlock: lock 'job' is about to be lost while the command is running: its "
                + "lease ends in");
        assertThat(ProcessHandle.of(childPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void fairRunRunsTheCommand(RedisServer redis) {
        DlockProcess p = DlockProcess.run("run", "--redis", redis.uri(), "--fair", "--wait", "5s", "fair-job",
                "--", "echo", "fair");
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).isEqualTo("fair\n");
    }

    @Test
    void readRunsShareAndAWriteRunWaitsForThem(RedisServer redis, LockClient client) throws Exception {
        Path release = dir.resolve("release");
        String hold = "touch " + dir + "/$1; while [ ! -f " + release + " ]; do sleep 0.05; done";
        DlockProcess r1 = start(redis, "run", "--read", "rw", "sh", "-c", hold, "sh", "r1");
        DlockProcess r2 = start(redis, "run", "--read", "rw", "sh", "-c", hold, "sh", "r2");
        Await.until(Duration.ofSeconds(20), () -> Files.exists(dir.resolve("r1")) && Files.exists(dir.resolve("r2")),
                () -> "both readers should hold the lock at once\n" + r1.describe() + "\n" + r2.describe());
        LockInfo info = client.inspect("rw");
        assertThat(info.mode()).isEqualTo(LockInfo.Mode.READ);
        assertThat(info.holders()).hasSize(2);

        DlockProcess writer = start(redis, "run", "--write", "--wait", "0", "rw", "true");
        writer.waitFor(Duration.ofSeconds(20));
        assertThat(writer.exitCode()).as(writer.describe()).isEqualTo(75);
        assertThat(writer.stderr()).contains("held for reading by");

        Files.writeString(release, "");
        r1.waitFor(PROMPTLY);
        r2.waitFor(PROMPTLY);
        DlockProcess writer2 = DlockProcess.run("run", "--redis", redis.uri(), "--write", "--wait", "5s", "rw",
                "--", "echo", "wrote");
        assertThat(writer2.exitCode()).as(writer2.describe()).isZero();
    }

    // ---- helpers ----

    private static DlockProcess start(RedisServer redis, String command, String... rest) {
        List<String> args = new ArrayList<>();
        args.add(command);
        args.add("--redis");
        args.add(redis.uri());
        args.addAll(List.of(rest));
        return DlockProcess.start(args.toArray(String[]::new));
    }

    private static long awaitPid(Path pidFile, DlockProcess p) throws IOException {
        Await.until(Duration.ofSeconds(20), () -> {
            try {
                return Files.exists(pidFile) && !Files.readString(pidFile).isBlank();
            } catch (IOException e) {
                return false;
            }
        }, () -> "the command did not start\n" + p.describe());
        return Long.parseLong(Files.readString(pidFile).strip());
    }

    /** Waits until {@code n} connections are subscribed to {@code channel}: a `dlock run` is waiting. */
    static void awaitSubscribers(RedisServer redis, String channel, long n, DlockProcess p) {
        RedisClient raw = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            Await.until(Duration.ofSeconds(20), () -> c.sync().pubsubNumsub(channel).getOrDefault(channel, 0L) >= n,
                    () -> "nobody waits on " + channel + "\n" + p.describe());
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }
}
