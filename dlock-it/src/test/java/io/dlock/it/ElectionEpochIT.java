package io.dlock.it;

import io.dlock.FencedLock;
import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The epoch never goes backwards (issue 44, item 3; docs/protocol.md §14.2): after a {@code DEL} of the token counter
 * the next win is still higher; and a candidate's floor, the highest epoch it has seen, lifts its next epoch above
 * what it saw even when the counter is far below it and the server's clock is no help (the case of a failover to a
 * replica that lags, or a restart whose clock bound falls short). Plain fenced locks take no floor.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class ElectionEpochIT {
    private static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(1500)).renewDeadline(Duration.ofMillis(1000)).retryPeriod(Duration.ofMillis(200))
            .stopTimeout(Duration.ofSeconds(1)).build();
    /** An epoch far above the server's clock in µs (about 1.8e15 in 2027), still exact in a Lua double (< 2^53). */
    private static final long HUGE = 6_000_000_000_000_000L;
    private static final String GHOST = "00000000-0000-0000-0000-000000000000";

    private final List<LockClient> clients = new ArrayList<>();
    private final List<LeaderElection> elections = new ArrayList<>();
    private RedisServer server;
    private RawRedis raw;
    private String name;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        this.server = server;
        this.raw = RawRedis.connect(server.uri());
        this.name = "it:ElectionEpochIT:" + info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void tearDown() {
        elections.forEach(LeaderElection::close);
        clients.forEach(LockClient::close);
        raw.close();
    }

    private LeaderElection candidate() {
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(server.uri())
                .commandTimeout(Duration.ofMillis(500)).build());
        clients.add(client);
        LeaderElection election = client.getLeaderElection(name, FAST);
        elections.add(election);
        return election;
    }

    private String counter() {
        return "redisson_lock_token:{" + name + "}";
    }

    @Test
    void aDeletedCounterStillGivesTheNextWinAHigherEpoch() throws Exception {
        LeaderElection a = candidate();
        LeaderElection b = candidate();
        a.start();
        long first = a.awaitLeadership(Duration.ofSeconds(5)).orElseThrow().epoch();
        for (int round = 0; round < 3; round++) {
            raw.sync().del(counter());
            LeaderElection leader = a.isLeader() ? a : b;
            long before = leader.currentTerm().orElseThrow().epoch();
            LeaderElection other = leader == a ? b : a;
            other.start();
            leader.resign();
            long next = other.awaitLeadership(Duration.ofSeconds(5)).orElseThrow().epoch();
            assertThat(next).as("round %d: the epoch after DEL of the counter", round).isGreaterThan(before)
                    .isGreaterThan(first);
        }
    }

    /**
     * The counter set to 1 while a candidate has seen an epoch far above the server's clock (a leader record it read,
     * written by a leader of a Redis that then lost everything): its win takes an epoch above what it saw. Without the
     * floor the epoch would be the server's clock, far below.
     */
    @Test
    void theCandidatesFloorLiftsItsEpochAboveEveryEpochItSaw() throws Exception {
        String holder = GHOST + ":-9";
        raw.sync().hset(name, holder, "1");
        raw.sync().pexpire(name, 1500);
        raw.sync().hset("dlock_leader:{" + name + "}", Map.of("holder", holder, "client", GHOST, "host", "lost",
                "pid", "1", "application", "lost", "epoch", Long.toString(HUGE), "since", "0"));
        raw.sync().pexpire("dlock_leader:{" + name + "}", 1500);
        raw.sync().set(counter(), Long.toString(HUGE));

        LeaderElection a = candidate();
        List<Long> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        a.addListener(new io.dlock.LeaderListener() {
            @Override
            public void leaderChanged(io.dlock.LeaderChange change) {
                change.current().ifPresent(leader -> seen.add(leader.epoch()));
            }
        });
        a.start();
        Await.until(Duration.ofSeconds(2), () -> seen.contains(HUGE), () -> "the candidate reads the leader: " + seen);
        raw.sync().set(counter(), "1"); // the counter is lost meanwhile, as in a restart or a lagging replica

        long epoch = a.awaitLeadership(Duration.ofSeconds(5)).orElseThrow().epoch();
        assertThat(epoch).as("the epoch after the counter fell to 1, the candidate having seen %d", HUGE)
                .isGreaterThan(HUGE);
        assertThat(Long.parseLong(raw.sync().get(counter()))).as("the counter holds the epoch").isEqualTo(epoch);

        // its own wins count too: the counter falls again, and its next term is still above its last
        a.resign();
        raw.sync().set(counter(), "1");
        long next = a.awaitLeadership(Duration.ofSeconds(5)).orElseThrow().epoch();
        assertThat(next).isGreaterThan(epoch);

        // a plain fenced lock takes no floor: the clock bound alone
        a.close();
        raw.sync().set(counter(), "1");
        FencedLock plain = clients.get(0).getFencedLock(name);
        long token = plain.tryLockAndGetToken();
        plain.unlock();
        assertThat(token).as("a plain fenced lock's token is the clock's").isLessThan(HUGE).isGreaterThan(1);
    }
}
