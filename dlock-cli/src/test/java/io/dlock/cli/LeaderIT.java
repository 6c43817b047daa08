package io.dlock.cli;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code dlock leader} and {@code dlock leader --watch} against real elections. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class LeaderIT {
    private static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(3000)).renewDeadline(Duration.ofMillis(2000)).retryPeriod(Duration.ofMillis(300))
            .stopTimeout(Duration.ofSeconds(1)).build();
    private static final Pattern EPOCH = Pattern.compile(", epoch (\\d+)");

    private final List<LeaderElection> elections = new ArrayList<>();

    @AfterEach
    void tearDown() {
        DlockProcess.killAll();
        elections.forEach(LeaderElection::close);
    }

    private LeaderElection candidate(LockClient client, String name) {
        LeaderElection election = client.getLeaderElection(name, FAST);
        elections.add(election);
        election.start();
        return election;
    }

    @Test
    void showsTheLeadersClientAndEpochAndExits0(RedisServer redis, LockClient client) throws Exception {
        LeaderTerm term = candidate(client, "jobs").awaitLeadership(Duration.ofSeconds(10)).orElseThrow();

        DlockProcess p = DlockProcess.run("leader", "--redis", redis.uri(), "jobs");
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).as(p.describe())
                .startsWith("jobs: led by " + client.getId()) // ":<owner id>" unless it is -1 (see LeaderView)
                .contains(", epoch " + term.epoch() + ", ttl ");
        assertThat(p.stderr()).isEmpty();
    }

    @Test
    void noCandidateIsNoLeaderWithExit1(RedisServer redis) {
        DlockProcess p = DlockProcess.run("leader", "--redis", redis.uri(), "nobody-runs");
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(ExitCodes.FAILED);
        assertThat(p.stdout()).as(p.describe()).isEqualTo("nobody-runs: no leader (last epoch none)\n");
    }

    @Test
    void watchShowsALeaderElectedBeforeItStartedThenTheHandOverThenNoLeader(RedisServer redis, LockClient a,
                                                                          LockClient b) throws Exception {
        LeaderElection first = candidate(a, "sched");
        LeaderTerm firstTerm = first.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
        DlockProcess watch = DlockProcess.start("leader", "--watch", "--interval", "50ms", "--redis", redis.uri(),
                "sched");
        Await.until(Duration.ofSeconds(20), () -> watch.stdout().contains("sched: led by " + a.getId()),
                watch::describe);
        assertThat(watch.stdout()).contains(", epoch " + firstTerm.epoch() + ", ttl ");

        LeaderElection second = candidate(b, "sched");
        first.resign();
        LeaderTerm secondTerm = second.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
        assertThat(secondTerm.epoch()).isGreaterThan(firstTerm.epoch());
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().contains("sched: led by " + b.getId())
                && watch.stdout().contains(", epoch " + secondTerm.epoch() + ","), watch::describe);

        first.close();
        second.close();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().contains("sched: no leader (last epoch "
                + secondTerm.epoch() + ")"), watch::describe);

        List<Long> epochs = new ArrayList<>();
        for (String line : watch.stdout().lines().toList()) {
            assertThat(line).as(watch.describe()).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} sched: .*");
            Matcher m = EPOCH.matcher(line);
            if (m.find()) {
                epochs.add(Long.parseLong(m.group(1)));
            }
        }
        assertThat(epochs).as(watch.describe()).isSorted().contains(firstTerm.epoch(), secondTerm.epoch());
        assertThat(watch.process.isAlive()).isTrue();
        watch.process.destroy();
        watch.waitFor(Duration.ofSeconds(10));
        assertThat(watch.stderr()).as(watch.describe()).isEmpty();
    }
}
