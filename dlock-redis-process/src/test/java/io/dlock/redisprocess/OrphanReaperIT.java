package io.dlock.redisprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guard against servers left behind by a JVM that was SIGKILLed. */
class OrphanReaperIT {

    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void killsARedisServerWhoseOwnerIsGone() throws Exception {
        Process redis = startRedis();
        Path pidFile = pidFile(redis.pid(), deadPid());

        assertThat(OrphanReaper.reap(tmp)).isEqualTo(1);

        assertThat(redis.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(pidFile).doesNotExist();
    }

    @Test
    void leavesServersOfLiveOwnersAlone() throws Exception {
        Process redis = startRedis();
        Path pidFile = pidFile(redis.pid(), ProcessHandle.current().pid());

        assertThat(OrphanReaper.reap(tmp)).isZero();

        assertThat(redis.isAlive()).isTrue();
        assertThat(pidFile).exists();
    }

    @Test
    void neverKillsAProcessThatIsNotRedis() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        started.add(sleeper);
        Path pidFile = pidFile(sleeper.pid(), deadPid());

        assertThat(OrphanReaper.reap(tmp)).isZero();

        assertThat(sleeper.isAlive()).isTrue();
        assertThat(pidFile).doesNotExist(); // the stale marker is dropped
    }

    @Test
    void ignoresStrangeFiles() throws IOException {
        Files.writeString(tmp.resolve("notes.txt"), "x");
        Files.writeString(tmp.resolve("a.b"), "x");
        assertThat(OrphanReaper.reap(tmp)).isZero();
        assertThat(OrphanReaper.reap(tmp.resolve("missing"))).isZero();
        assertThat(tmp.resolve("notes.txt")).exists();
    }

    private Process startRedis() throws IOException {
        int port = Ports.freePort();
        Path dir = Files.createDirectories(tmp.resolve("redis-" + port));
        Process p = new ProcessBuilder(RedisBinary.resolve().toString(), "--bind", "127.0.0.1", "--port",
                Integer.toString(port), "--save", "", "--dir", dir.toString(), "--logfile",
                dir.resolve("log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        started.add(p);
        Await.until(Duration.ofSeconds(10), () -> "+PONG".equals(RawPing.ping(port, 200)),
                "redis-server on port " + port + " answers");
        return p;
    }

    private Path pidFile(long serverPid, long ownerPid) throws IOException {
        return Files.writeString(tmp.resolve(serverPid + "." + ownerPid), "binary=" + RedisBinary.resolve() + "\n");
    }

    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }
}
