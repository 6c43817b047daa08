package io.dlock.cli;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.SemaphoreInfo;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
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
import java.util.Comparator;
import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code dlock run --permits N}: the real jar under one permit of an N-permit leased semaphore. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class RunPermitsIT {
    private static final Duration PROMPTLY = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    /**
     * Three runs with {@code --permits 2} started at once. Each command writes a start and an end line with the time
     * (both while it holds its permit); the first two to get a permit wait for each other, so that two do run at
     * once, and the third must wait for one of them. The commands' own lines must never show three inside at once.
     */
    @Test
    void threeRunsWithTwoPermitsNeverHaveMoreThanTwoInsideAtOnce(RedisServer redis, LockClient client)
            throws IOException {
        Path log = dir.resolve("log");
        Files.createFile(log);
        String script = "echo \"start $1 $(date +%s%N)\" >> " + log + "; i=0; "
                + "while [ $(grep -c start " + log + ") -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
                + "sleep 0.5; echo \"end $1 $(date +%s%N)\" >> " + log;
        List<DlockProcess> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            runs.add(start(redis, "run", "--permits", "2", "sem:job", "sh", "-c", script, "sh", "run" + i));
        }
        for (DlockProcess p : runs) {
            p.waitFor(Duration.ofSeconds(60));
            assertThat(p.exitCode()).as(p.describe()).isZero();
        }
        List<String[]> events = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            events.add(line.split(" "));
        }
        assertThat(events).as("a start and an end per run").hasSize(6);
        events.sort(Comparator.comparingLong(e -> Long.parseLong(e[2])));
        int inside = 0;
        int most = 0;
        for (String[] e : events) {
            inside += e[0].equals("start") ? 1 : -1;
            most = Math.max(most, inside);
        }
        assertThat(most).as("most commands inside at once, by their own clocks: %s", Files.readAllLines(log))
                .isEqualTo(2);
        SemaphoreInfo after = client.inspectSemaphore("sem:job");
        assertThat(after.availablePermits()).as("every permit given back").isEqualTo(2);
        assertThat(after.permits()).isEmpty();
    }

    @Test
    void theCommandSeesItsPermitAndABusySemaphoreExitsWithTheBusyCode(RedisServer redis, LockClient client)
            throws Exception {
        Path idFile = dir.resolve("id");
        DlockProcess holder = start(redis, "run", "--permits", "1", "sem:one", "sh", "-c",
                "echo $DLOCK_PERMIT_ID > " + idFile + "; exec sleep 60");
        String id = awaitFile(idFile, holder);
        SemaphoreInfo info = client.inspectSemaphore("sem:one");
        assertThat(info.permits()).extracting(SemaphoreInfo.PermitLease::id).containsExactly(id);
        assertThat(info.permits().get(0).leaseMillis()).as("the 30 s watchdog lease").isBetween(1L, 30_000L);
        assertThat(info.availablePermits()).isZero();

        DlockProcess busy = DlockProcess.run(Duration.ofSeconds(30), "run", "--redis", redis.uri(), "--permits", "1",
                "--wait", "0", "sem:one", "--", "true");
        assertThat(busy.exitCode()).as(busy.describe()).isEqualTo(75);
        assertThat(busy.stderr()).startsWith("dlock: semaphore 'sem:one' has no free permit: 1 of 1 leased: " + id
                + " (ttl ");
        DlockProcess timedOut = DlockProcess.run(Duration.ofSeconds(30), "run", "--redis", redis.uri(), "--permits",
                "1", "--wait", "500ms", "-E", "9", "sem:one", "--", "true");
        assertThat(timedOut.exitCode()).as(timedOut.describe()).isEqualTo(9);
        assertThat(timedOut.stderr()).startsWith("dlock: timed out after 500ms waiting for a permit of semaphore "
                + "'sem:one': 1 of 1 leased: " + id);

        holder.process.destroy(); // SIGTERM: stops the command, gives the permit back
        holder.waitFor(PROMPTLY);
        assertThat(holder.exitCode()).as(holder.describe()).isEqualTo(143);
        assertThat(client.inspectSemaphore("sem:one").availablePermits()).isEqualTo(1);
    }

    @Test
    void aLostPermitStopsTheCommandAndExits76(RedisServer redis, LockClient client) throws Exception {
        Path pidFile = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "--permits", "2", "--watchdog", "3s", "--kill-after", "1s", "sem:lost",
                "sh", "-c", "echo $$ > " + pidFile + "; exec sleep 60");
        long childPid = Long.parseLong(awaitFile(pidFile, p));
        String id = client.inspectSemaphore("sem:lost").permits().get(0).id();
        // another client gives the permit back by its id (as Redisson's release(id) would): the run's is gone
        assertThat(client.getLeasedSemaphore("sem:lost").release(id)).isTrue();
        p.waitFor(Duration.ofSeconds(15));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("dlock: lost the permit of semaphore 'sem:lost' while the command was "
                + "running: it was removed", "stopping the command");
        assertThat(p.stderr().lines()).as("one message, no warning at release").hasSize(1);
        assertThat(ProcessHandle.of(childPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(client.inspectSemaphore("sem:lost").availablePermits()).as("given back once").isEqualTo(2);
    }

    /** {@code dlock unlock --force --permit ID}: gives back one leased permit; the run holding it stops (76). */
    @Test
    void unlockForceWithAPermitIdGivesItBackAndItsRunStops(RedisServer redis, LockClient client) throws Exception {
        Path pidFile = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "--permits", "2", "--watchdog", "3s", "--kill-after", "1s", "sem:cli",
                "sh", "-c", "echo $$ > " + pidFile + "; exec sleep 60");
        awaitFile(pidFile, p);
        String id = client.inspectSemaphore("sem:cli").permits().get(0).id();

        DlockProcess noForce = DlockProcess.run(Duration.ofSeconds(30), "unlock", "--redis", redis.uri(), "--permit",
                id, "sem:cli");
        assertThat(noForce.exitCode()).as(noForce.describe()).isEqualTo(2);
        DlockProcess released = DlockProcess.run(Duration.ofSeconds(30), "unlock", "--redis", redis.uri(), "--force",
                "--permit", id, "sem:cli");
        assertThat(released.exitCode()).as(released.describe()).isZero();
        assertThat(released.stdout()).isEqualTo("released permit " + id + " of semaphore 'sem:cli', 2 available now\n");
        p.waitFor(Duration.ofSeconds(15));
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(client.inspectSemaphore("sem:cli").availablePermits()).as("given back once").isEqualTo(2);

        DlockProcess again = DlockProcess.run(Duration.ofSeconds(30), "unlock", "--redis", redis.uri(), "--force",
                "--permit", id, "sem:cli");
        assertThat(again.exitCode()).as(again.describe()).isEqualTo(1);
        assertThat(again.stderr()).startsWith("dlock: semaphore 'sem:cli': no permit with id " + id + " is held");
        assertThat(client.inspectSemaphore("sem:cli").availablePermits()).as("not given back twice").isEqualTo(2);
    }

    /**
     * {@code dlock unlock --force --permit ID} of a permit whose lease ended but that nobody reclaimed yet: the
     * release gives it back, so the command says so and succeeds (issue 27, failure 12); an unknown id still fails.
     */
    @Test
    void unlockForceOfAnExpiredPermitSaysItGaveItBack(RedisServer redis, LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore("sem:expired");
        semaphore.trySetPermits(1);
        Permit permit = semaphore.acquire(Duration.ofMillis(200));
        Await.until(Duration.ofSeconds(5), () -> client.inspectSemaphore("sem:expired").expiredPermits() == 1,
                "the lease ended (not reclaimed: inspection does not write)");
        assertThat(client.inspectSemaphore("sem:expired").permits()).isEmpty();

        DlockProcess released = DlockProcess.run(Duration.ofSeconds(30), "unlock", "--redis", redis.uri(), "--force",
                "--permit", permit.id(), "sem:expired");
        assertThat(released.exitCode()).as(released.describe()).isZero();
        assertThat(released.stdout()).isEqualTo("released permit " + permit.id() + " of semaphore 'sem:expired' "
                + "(its lease had ended; it was not reclaimed yet), 1 available now\n");
        assertThat(released.stderr()).isEmpty();
        SemaphoreInfo after = client.inspectSemaphore("sem:expired");
        assertThat(after.expiredPermits()).as("no longer in the table").isZero();
        assertThat(after.availablePermits()).as("given back once").isEqualTo(1);

        DlockProcess unknown = DlockProcess.run(Duration.ofSeconds(30), "unlock", "--redis", redis.uri(), "--force",
                "--permit", permit.id(), "sem:expired");
        assertThat(unknown.exitCode()).as(unknown.describe()).isEqualTo(1);
        assertThat(unknown.stderr()).startsWith("dlock: semaphore 'sem:expired': no permit with id " + permit.id()
                + " is held");
        assertThat(client.inspectSemaphore("sem:expired").availablePermits()).as("not given back twice").isEqualTo(1);
    }

    @Test
    void theEndOfAFixedLeaseStopsTheCommand(RedisServer redis, LockClient client) throws Exception {
        Path pidFile = dir.resolve("pid");
        DlockProcess p = start(redis, "run", "--permits", "1", "--lease", "2s", "sem:lease", "sh", "-c",
                "echo $$ > " + pidFile + "; exec sleep 60");
        long childPid = Long.parseLong(awaitFile(pidFile, p));
        assertThat(client.inspectSemaphore("sem:lease").permits().get(0).leaseMillis()).isBetween(1L, 2000L);
        p.waitFor(PROMPTLY);
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(76);
        assertThat(p.stderr()).contains("dlock: the permit of semaphore 'sem:lease' is about to be lost while the "
                + "command is running: its lease ends in");
        assertThat(ProcessHandle.of(childPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void sigtermWhileWaitingForAPermitLeavesNothingBehind(RedisServer redis, LockClient client) throws Exception {
        LeasedSemaphore sem = client.getLeasedSemaphore("sem:wait");
        sem.trySetPermits(1);
        Permit ours = sem.acquire();
        DlockProcess p = start(redis, "run", "--permits", "1", "sem:wait", "true");
        RunIT.awaitSubscribers(redis, "redisson_sc:{sem:wait}", 1, p);
        p.process.destroy();
        p.waitFor(PROMPTLY);
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(143);
        SemaphoreInfo info = client.inspectSemaphore("sem:wait");
        assertThat(info.permits()).extracting(SemaphoreInfo.PermitLease::id).containsExactly(ours.id());
        assertThat(info.availablePermits()).isZero();
        assertThat(ours.release()).isTrue();
    }

    @Test
    void aSemaphoreOfAnotherSizeIsRefusedAndBadPermitsAreUsageErrors(RedisServer redis, LockClient client) {
        client.getLeasedSemaphore("sem:three").trySetPermits(3);
        Path marker = dir.resolve("ran");
        DlockProcess other = DlockProcess.run(Duration.ofSeconds(30), "run", "--redis", redis.uri(), "--permits", "2",
                "sem:three", "--", "touch", marker.toString());
        assertThat(other.exitCode()).as(other.describe()).isEqualTo(78);
        assertThat(other.stderr()).isEqualTo("dlock: semaphore 'sem:three' has 3 permits (3 available, 0 leased), "
                + "not 2: another --permits, or another program, set it up with that many; run with --permits 3, or "
                + "change its size (see dlock-cli/README.md, 'Permits')\n");
        assertThat(marker).doesNotExist();

        for (String[] args : List.of(new String[] {"--permits", "0"}, new String[] {"--permits", "2", "--fair"},
                new String[] {"--permits", "2", "--read"}, new String[] {"--permits", "x"})) {
            List<String> line = new ArrayList<>(List.of("run", "--redis", redis.uri()));
            line.addAll(List.of(args));
            line.addAll(List.of("sem:bad", "--", "true"));
            DlockProcess bad = DlockProcess.run(Duration.ofSeconds(30), line.toArray(String[]::new));
            assertThat(bad.exitCode()).as(bad.describe()).isEqualTo(2);
            assertThat(bad.stderr()).startsWith("dlock: ").contains("--permits");
        }
        assertThat(client.inspectSemaphore("sem:bad").isSet()).as("nothing created by a refused run").isFalse();
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

    private static String awaitFile(Path file, DlockProcess p) throws IOException {
        Await.until(Duration.ofSeconds(30), () -> {
            try {
                return Files.exists(file) && Files.readString(file).endsWith("\n");
            } catch (IOException e) {
                return false;
            }
        }, () -> "the command did not start\n" + p.describe());
        return Files.readString(file).strip();
    }
}
