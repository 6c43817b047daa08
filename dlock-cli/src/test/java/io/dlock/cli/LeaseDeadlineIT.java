package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code dlock run} keeps the command inside its lease (issue 13, point 6): the command has ended before the hold can
 * expire in Redis, whether it handles SIGTERM or ignores it, and also when dlock itself is SIGKILLed or SIGSTOPped.
 *
 * <p>The invariant checked: the instant the command was first seen dead comes before the earliest instant the key can
 * expire in Redis, {@code E = (when a PTTL request was sent) + (its reply)}: Redis counts the TTL from no earlier than
 * the request's arrival, and nothing renews the key after that reading (a fixed lease, or a dlock that is dead or
 * stopped). The command is a bash whose descendants inherit its signal dispositions.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class LeaseDeadlineIT {
    private static final String IGNORES_TERM = "trap '' TERM; sleep 100";
    private static final String HANDLES_TERM = "trap 'echo term >> \"$0.term\"; exit 3' TERM; sleep 100 & wait";

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
        long dead = awaitDeath(child, earliestExpiry, p);
        assertThat(dead).as("the command ignoring SIGTERM died %d ms before the lease could end",
                (earliestExpiry - dead) / 1_000_000).isLessThan(earliestExpiry);
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
        long dead = awaitDeath(child, earliestExpiry, p);
        assertThat(dead).as("ended before the lease could").isLessThan(earliestExpiry);
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
        long killed = System.nanoTime();
        long earliestExpiry = earliestExpiry("job");
        long dead = awaitDeath(child, earliestExpiry, p);
        assertThat(dead).as("the command ended before the lease could").isLessThan(earliestExpiry);
        assertThat((dead - killed) / 1_000_000).as("ms from the SIGKILL of dlock to the command's death")
                .isLessThan(500 + 1000);
        LockInfo info = client.inspect("job");
        assertThat(info.holders()).as("not released: nobody is left to release it").extracting(LockInfo.Holder::threadId)
                .containsExactly(p.process.pid());
        Poll.until(Duration.ofSeconds(4), () -> client.inspect("job").type() == LockInfo.Type.NONE,
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
            long dead = awaitDeath(child, earliestExpiry, p);
            assertThat(dead).as("the command ended before the unrenewed lease could").isLessThan(earliestExpiry);
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
            long dead = awaitDeath(child, earliestExpiry, p);
            assertThat(dead).as("the command ended %d ms before the unrenewed lease could",
                    (earliestExpiry - dead) / 1_000_000).isLessThan(earliestExpiry);
        } finally {
            server.resume();
        }
        p.waitFor(Duration.ofSeconds(15));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("is about to be lost while the command is running", "(not renewed)");
    }

    @Test
    void aRenewedRunIsNotStoppedWhileRenewalsSucceed(RedisServer server) throws Exception {
        // 4 renewal rounds of a 1.5 s watchdog with the longest kill-after allowed (a third of it)
        DlockProcess p = start(server, "--watchdog", "1.5s", "--kill-after", "0.5s", "job",
                "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 0.1; done; exit 5");
        p.waitFor(Duration.ofSeconds(20));
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
        Poll.until(Duration.ofSeconds(20), () -> {
            try {
                return Files.exists(pidFile) && Files.readString(pidFile).endsWith("\n");
            } catch (IOException e) {
                return false;
            }
        }, () -> "the command did not start\n" + p.describe());
        return Long.parseLong(Files.readString(pidFile).strip());
    }

    /** System.nanoTime() before which the key cannot expire: PTTL's send time plus its reply. */
    private long earliestExpiry(String key) {
        long sent = System.nanoTime();
        Long pttl = redis.sync().pttl(key);
        assertThat(pttl).as("the lock's TTL").isPositive();
        return sent + pttl * 1_000_000L;
    }

    /** Polls every 2 ms until {@code pid} is dead (gone or a zombie); returns when it was first seen so. */
    private static long awaitDeath(long pid, long earliestExpiry, DlockProcess p) throws InterruptedException {
        long giveUp = earliestExpiry + SECONDS.toNanos(5);
        while (running(pid)) {
            if (System.nanoTime() > giveUp) {
                throw new AssertionError("the command (pid " + pid + ") still runs 5 s after its lease could end\n"
                        + p.describe());
            }
            Thread.sleep(2);
        }
        return System.nanoTime();
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
