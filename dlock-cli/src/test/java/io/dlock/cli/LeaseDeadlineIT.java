package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code dlock run} keeps the command inside its lease (issue 13, point 6): the command has ended before the hold can
 * expire in Redis, whether it handles SIGTERM or ignores it, and also when dlock itself is SIGKILLed or SIGSTOPped.
 *
 * <p>The invariant checked: the command's last sign of life comes before the earliest instant the key can expire in
 * Redis. The command stamps the wall clock ({@code $EPOCHREALTIME}) into a file every 10 ms while it runs; the
 * earliest expiry is {@code E = (wall clock when a PTTL request was sent) + (its reply)}, since Redis counts the TTL
 * from no earlier than the request's arrival and nothing renews the key after that reading (a fixed lease, or a dlock
 * that is dead or stopped, or a Redis that is paused). Both instants are taken where they happen, so a test thread
 * that is scheduled late (a busy host) cannot make the check pass or fail. The command is a bash whose descendants
 * inherit its signal dispositions; it sleeps with a builtin ({@code read -t} on a pipe nobody writes to).
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class LeaseDeadlineIT {
    private static final String ALIVE = "exec 8<> <(:); while :; do echo $EPOCHREALTIME >> \"$0.alive\"; "
            + "read -t 0.01 -u 8; done";
    private static final String IGNORES_TERM = "trap '' TERM; " + ALIVE;
    private static final String HANDLES_TERM = "trap 'echo term >> \"$0.term\"; exit 3' TERM; " + ALIVE;

    @TempDir
    Path dir;
    private RedisClient raw;
    private StatefulRedisConnection<String, String> redis;

    @BeforeEach
    void connect(RedisServer server) {
        raw = RedisClient.create(server.uri());
        redis = raw.connect();
    }

    @AfterEach
    void cleanUp() {
        DlockProcess.killAll();
        redis.close();
        raw.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }

    @Test
    void aCommandIgnoringSigtermIsDeadBeforeAFixedLeaseEnds(RedisServer server) throws Exception {
        DlockProcess p = start(server, "--lease", "3s", "--kill-after", "0.5s", "job", IGNORES_TERM);
        long child = awaitPid(p);
        long earliestExpiry = earliestExpiry("job");
        awaitDeath(child, p);
        long last = lastSignOfLife();
        assertThat(last).as("the command ignoring SIGTERM was last alive %d ms before the lease could end",
                (earliestExpiry - last) / 1000).isLessThan(earliestExpiry);
        p.waitFor(Duration.ofSeconds(10));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("dlock: lock 'job' is about to be lost while the command is running: its "
                + "lease ends in", "stopping the command");
    }

    @Test
    void aCommandHandlingSigtermGetsItOnceAndEndsBeforeAFixedLeaseEnds(RedisServer server) throws Exception {
        DlockProcess p = start(server, "--lease", "3s", "--kill-after", "0.5s", "job", HANDLES_TERM);
        long child = awaitPid(p);
        long earliestExpiry = earliestExpiry("job");
        awaitDeath(child, p);
        assertThat(lastSignOfLife()).as("ended before the lease could").isLessThan(earliestExpiry);
        p.waitFor(Duration.ofSeconds(10));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(Files.readString(dir.resolve("cmd.term"))).as("exactly one SIGTERM").isEqualTo("term\n");
    }

    @Test
    void sigkillOfDlockStopsTheCommandAndTheLockExpiresWithItsLease(RedisServer server, LockClient client)
            throws Exception {
        DlockProcess p = start(server, "--watchdog", "3s", "--kill-after", "0.5s", "job", IGNORES_TERM);
        long child = awaitPid(p);
        p.process.destroyForcibly(); // SIGKILL: dlock can do nothing more
        p.process.waitFor();
        long killed = wallMicros();
        long earliestExpiry = earliestExpiry("job");
        awaitDeath(child, p);
        long last = lastSignOfLife();
        assertThat(last).as("the command ended before the lease could").isLessThan(earliestExpiry);
        assertThat((last - killed) / 1000).as("ms from the SIGKILL of dlock to the command's last sign of life "
                + "(kill-after 500 ms)").isLessThan(500 + 1000);
        LockInfo info = client.inspect("job");
        assertThat(info.holders()).as("not released: nobody is left to release it")
                .extracting(LockInfo.Holder::threadId)
                .containsExactly(p.process.pid());
        Await.until(Duration.ofSeconds(4), () -> client.inspect("job").type() == LockInfo.Type.NONE,
                () -> "the lock should expire within its 3 s watchdog lease: " + client.inspect("job"));
        // (the guard's message cannot be checked here: the JDK closes a child's stderr pipe once the child exits)
    }

    @Test
    void aStoppedDlockCannotLetTheCommandOutliveTheLease(RedisServer server) throws Exception {
        DlockProcess p = start(server, "--watchdog", "3s", "--kill-after", "0.5s", "job", IGNORES_TERM);
        long child = awaitPid(p);
        signal("STOP", p.process.pid()); // renewals stop with it
        try {
            long earliestExpiry = earliestExpiry("job");
            awaitDeath(child, p);
            assertThat(lastSignOfLife()).as("the command ended before the unrenewed lease could")
                    .isLessThan(earliestExpiry);
        } finally {
            signal("CONT", p.process.pid());
        }
        p.waitFor(Duration.ofSeconds(10));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("is not renewing lock 'job' (stopped?); stopping the command");
    }

    @Test
    void unreachableRedisStopsTheCommandBeforeTheUnrenewedLeaseEnds(RedisServer server) throws Exception {
        DlockProcess p = start(server, "--watchdog", "3s", "--kill-after", "0.5s", "job", IGNORES_TERM);
        long child = awaitPid(p);
        // (a renewal landing between this reading and the pause would move the real expiry later, not earlier)
        long earliestExpiry = earliestExpiry("job");
        server.pause(); // renewals now time out: the hold's deadline stops moving
        try {
            awaitDeath(child, p);
            long last = lastSignOfLife();
            assertThat(last).as("the command was last alive %d ms before the unrenewed lease could end",
                    (earliestExpiry - last) / 1000).isLessThan(earliestExpiry);
        } finally {
            server.resume();
        }
        p.waitFor(Duration.ofSeconds(15));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("is about to be lost while the command is running", "(not renewed)");
    }

    @Test
    void aRenewedRunIsNotStoppedWhileRenewalsSucceed(RedisServer server) throws Exception {
        // 4 renewal rounds of a 3 s watchdog: the stop time (about 2 s after a renewal) is never reached
        DlockProcess p = start(server, "--watchdog", "3s", "--kill-after", "0.5s", "job",
                "exec 8<> <(:); read -t 4 -u 8; exit 5");
        p.waitFor(Duration.ofSeconds(50));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(5);
        assertThat(p.stderr()).isEmpty();
    }

    // ---- helpers ----

    private DlockProcess start(RedisServer server, String... runArgs) {
        List<String> args = new ArrayList<>(List.of("run", "--redis", server.uri()));
        args.addAll(List.of(runArgs).subList(0, runArgs.length - 1));
        args.addAll(List.of("bash", "-c", "echo $$ > \"$0.pid\"; " + runArgs[runArgs.length - 1],
                dir.resolve("cmd").toString()));
        return DlockProcess.start(args.toArray(String[]::new));
    }

    private long awaitPid(DlockProcess p) throws IOException {
        Path pidFile = dir.resolve("cmd.pid");
        Await.until(Duration.ofSeconds(20), () -> {
            try {
                return Files.exists(pidFile) && Files.readString(pidFile).endsWith("\n");
            } catch (IOException e) {
                return false;
            }
        }, () -> "the command did not start\n" + p.describe());
        return Long.parseLong(Files.readString(pidFile).strip());
    }

    /** Wall-clock µs before which the key cannot expire: PTTL's send time plus its reply. */
    private long earliestExpiry(String key) {
        long sent = wallMicros();
        Long pttl = redis.sync().pttl(key);
        assertThat(pttl).as("the lock's TTL").isPositive();
        return sent + pttl * 1000L;
    }

    private static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    /** The last wall-clock stamp (µs) the command wrote while it ran. */
    private long lastSignOfLife() throws IOException {
        List<String> stamps = Files.readAllLines(dir.resolve("cmd.alive"));
        assertThat(stamps).as("the command ran").isNotEmpty();
        String last = stamps.get(stamps.size() - 1).isBlank() && stamps.size() > 1 ? stamps.get(stamps.size() - 2)
                : stamps.get(stamps.size() - 1);
        return new BigDecimal(last.strip()).movePointRight(6).longValue();
    }

    /** Waits (polling every 5 ms, up to 30 s) until {@code pid} is dead: gone or a zombie. */
    private static void awaitDeath(long pid, DlockProcess p) throws InterruptedException {
        long giveUp = System.nanoTime() + SECONDS.toNanos(30);
        while (running(pid)) {
            if (System.nanoTime() > giveUp) {
                throw new AssertionError("the command (pid " + pid + ") still runs 30 s on\n" + p.describe());
            }
            Thread.sleep(5);
        }
    }

    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    private static void signal(String name, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
    }
}
