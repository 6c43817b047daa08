package io.dlock.it;

import io.dlock.LeaderChange;
import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderInfo;
import io.dlock.LeaderListener;
import io.dlock.LeaderObserver;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.NotALockException;
import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.ElectionCandidate;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who leads, for anyone (issue 44, item 4): {@code inspectLeader} reads the leader record its candidate's win wrote
 * (identity, epoch, since, TTL) and nothing once the leader let go; {@code observeLeader} tells a late observer the
 * current leader at once, follows successive leaders across resign and kill -9 with rising epochs, and re-reads after
 * its pub/sub connection is cut; keys of another type are refused with the key named.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class LeaderObservationIT {
    private static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(1500)).renewDeadline(Duration.ofMillis(1000)).retryPeriod(Duration.ofMillis(200))
            .stopTimeout(Duration.ofSeconds(1)).build();

    private final List<LockClient> clients = new ArrayList<>();
    private final List<LeaderElection> elections = new ArrayList<>();
    private RedisServer server;
    private RawRedis raw;
    private String name;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        this.server = server;
        this.raw = RawRedis.connect(server.uri());
        this.name = "it:LeaderObservationIT:" + info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void tearDown() {
        elections.forEach(LeaderElection::close);
        clients.forEach(LockClient::close);
        raw.close();
    }

    private LockClient client(String application) {
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(server.uri())
                .applicationName(application).commandTimeout(Duration.ofMillis(500)).build());
        clients.add(client);
        return client;
    }

    private LeaderElection candidate(LockClient client) {
        LeaderElection election = client.getLeaderElection(name, FAST);
        elections.add(election);
        return election;
    }

    private static String recordKey(String name) {
        return "dlock_leader:{" + name + "}";
    }

    /** What an observer was told, in order. */
    private static final class Told implements LeaderObserver {
        final List<LeaderChange> changes = new CopyOnWriteArrayList<>();

        @Override
        public void leaderChanged(LeaderChange change) {
            changes.add(change);
        }

        Optional<LeaderInfo> last() {
            return changes.isEmpty() ? Optional.empty() : changes.get(changes.size() - 1).current();
        }

        boolean lastIs(long epoch) {
            return last().map(leader -> leader.epoch() == epoch).orElse(false);
        }

        boolean lastIsNobody() {
            return !changes.isEmpty() && changes.get(changes.size() - 1).current().isEmpty();
        }

        /** The epochs of the leaders told, in order. */
        List<Long> epochs() {
            return changes.stream().flatMap(c -> c.current().stream()).map(LeaderInfo::epoch).toList();
        }
    }

    @Test
    void inspectLeaderShowsWhoLeadsAndNothingOnceTheLeaderLetGo() throws Exception {
        LockClient leaderClient = client("billing");
        LockClient reader = client("dashboard");
        assertThat(reader.inspectLeader(name)).as("nobody leads yet").isEmpty();
        LeaderElection election = candidate(leaderClient);
        Instant before = Instant.now().minusSeconds(1);
        election.start();
        LeaderTerm term = election.awaitLeadership(Duration.ofSeconds(5)).orElseThrow();

        LeaderInfo leader = reader.inspectLeader(name).orElseThrow();
        assertThat(leader.election()).isEqualTo(name);
        assertThat(leader.identity()).isEqualTo(leaderClient.identity());
        assertThat(leader.identity().application()).isEqualTo("billing");
        assertThat(leader.holder()).startsWith(leaderClient.getId() + ":");
        assertThat(raw.hgetall(name)).as("the lock's hash, as Redisson has it").containsOnlyKeys(leader.holder())
                .containsEntry(leader.holder(), "1");
        assertThat(leader.epoch()).isEqualTo(term.epoch());
        assertThat(leader.since()).isBetween(before, Instant.now().plusSeconds(1));
        assertThat(leader.timeToLive()).isPositive().isLessThanOrEqualTo(FAST.lease());
        assertThat(reader.inspectLeaderAsync(name).get(5, SECONDS).map(LeaderInfo::epoch)).contains(term.epoch());
        assertThat(raw.keys()).as("the election's keys: the lock's, the token counter, the leader record")
                .contains(name, "redisson_lock_token:{" + name + "}", recordKey(name));
        long recordTtl = raw.pttl(recordKey(name));
        assertThat(recordTtl).as("the record's TTL is the lease's").isPositive().isLessThanOrEqualTo(1500);

        // renewals every 200 ms: the TTL falls between them and rises at each (a first read just after the win may
        // already be the lease's whole, so the rise is measured from the lowest reading seen, not from that one)
        long[] lowest = {recordTtl};
        Await.until(Duration.ofSeconds(5), () -> {
            long ttl = raw.pttl(recordKey(name));
            if (ttl <= 0) {
                return false; // the record must live throughout the term
            }
            lowest[0] = Math.min(lowest[0], ttl);
            return ttl > lowest[0] + 50;
        }, "a renewal refreshes the record's TTL");
        election.close();
        assertThat(reader.inspectLeader(name)).as("after close").isEmpty();
        assertThat(raw.exists(recordKey(name))).as("the release deleted the record").isFalse();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void aLateObserverSeesTheCurrentLeaderAtOnceAndCandidatesHearWhoLeads() throws Exception {
        LeaderElection a = candidate(client("a"));
        a.start();
        long epoch = a.awaitLeadership(Duration.ofSeconds(5)).orElseThrow().epoch();

        List<LeaderChange> heardByB = new CopyOnWriteArrayList<>();
        LeaderElection b = candidate(client("b"));
        b.addListener(new LeaderListener() {
            @Override
            public void leaderChanged(LeaderChange change) {
                heardByB.add(change);
            }
        });
        b.start();

        Told told = new Told();
        long started = System.nanoTime();
        try (LeaderObserver.Subscription ignored = client("observer").observeLeader(name, told)) {
            Await.until(Duration.ofSeconds(2), () -> !told.changes.isEmpty(), "the observer is told who leads");
            System.out.printf("late observer told the current leader in %d ms%n", Await.millisSince(started));
            assertThat(told.changes).hasSize(1);
            assertThat(told.lastIs(epoch)).as("told %s", told.changes).isTrue();
            assertThat(told.last().orElseThrow().identity().application()).isEqualTo("a");
        }
        Await.until(Duration.ofSeconds(2), () -> heardByB.stream().anyMatch(c -> c.current()
                .map(l -> l.epoch() == epoch).orElse(false)), () -> "candidate b hears a leads: " + heardByB);
    }

    @Test
    void anObserverSeesSuccessiveLeadersWithRisingEpochsAcrossResignAndKill() throws Exception {
        Told told = new Told();
        LockClient observerClient = client("observer");
        try (LeaderObserver.Subscription ignored = observerClient.observeLeader(name, told)) {
            Await.until(Duration.ofSeconds(2), told::lastIsNobody, () -> "told nobody leads first: " + told.changes);
            long childEpoch;
            try (ChildJvm child = ChildJvm.start("LeaderObservationIT-leader", ElectionCandidate.class, server.uri(),
                    name, "1500", "1000", "200")) {
                childEpoch = Long.parseLong(child.awaitLine("ELECTED ", Duration.ofSeconds(30))
                        .substring("ELECTED ".length()).trim());
                Await.until(Duration.ofSeconds(2), () -> told.lastIs(childEpoch),
                        () -> "told the child leads (" + childEpoch + "): " + told.changes);
                LeaderElection a = candidate(client("a"));
                LeaderElection b = candidate(client("b"));
                a.start();
                b.start();
                child.kill();
            }
            Await.until(Duration.ofSeconds(10), () -> told.last().map(l -> l.epoch() > childEpoch).orElse(false),
                    () -> "told a successor of the killed child: " + told.changes);
            for (int round = 0; round < 4; round++) {
                long current = told.last().orElseThrow().epoch();
                // the observer may hear of a win before the winner's loop has taken its reply
                AtomicReference<LeaderElection> leading = new AtomicReference<>();
                Await.until(Duration.ofSeconds(5), () -> {
                    leading.set(elections.stream().filter(e -> e.currentTerm()
                            .map(t -> t.isValid() && t.epoch() == current).orElse(false)).findFirst().orElse(null));
                    return leading.get() != null;
                }, () -> "a candidate leads with the epoch told, " + current);
                leading.get().resign();
                Await.until(Duration.ofSeconds(5), () -> told.last().map(l -> l.epoch() > current).orElse(false),
                        () -> "told the leader after a resign: " + told.changes);
            }
            List<Long> epochs = told.epochs();
            // the child's epoch may come after another of its own: a cold JVM's first grant can come after its wait
            // of one retry period ended, so it was given back (yet leader for a moment in Redis, where it was seen)
            assertThat(epochs).as("epochs told: %s", told.changes).isSorted().doesNotHaveDuplicates()
                    .hasSizeGreaterThanOrEqualTo(6).contains(childEpoch);
        }
    }

    @Test
    void anObserverWhosePubSubConnectionIsCutReadsAgainOnceResubscribed() throws Exception {
        Told told = new Told();
        LockClient observerClient = client("observer");
        try (LeaderObserver.Subscription ignored = observerClient.observeLeader(name, told)) {
            Await.until(Duration.ofSeconds(2), told::lastIsNobody, () -> "told nobody leads first: " + told.changes);
            // a leader appears without a message (as if its publish was lost): only a read finds it
            String holder = "00000000-0000-0000-0000-000000000000:-7";
            raw.sync().hset(name, holder, "1");
            raw.sync().pexpire(name, 30_000);
            raw.sync().hset(recordKey(name), java.util.Map.of("holder", holder, "client",
                    "00000000-0000-0000-0000-000000000000", "host", "elsewhere", "pid", "42", "application", "ghost",
                    "epoch", "123456", "since", "1700000000000"));
            raw.sync().pexpire(recordKey(name), 30_000);
            Await.during(Duration.ofMillis(300), told::lastIsNobody, "nothing told without a message");
            raw.killPubSubConnections();
            Await.until(Duration.ofSeconds(10), () -> told.lastIs(123456),
                    () -> "re-read after the resubscription: " + told.changes);
            LeaderInfo ghost = told.last().orElseThrow();
            assertThat(ghost.identity().host()).isEqualTo("elsewhere");
            assertThat(ghost.identity().pid()).isEqualTo(42);
            assertThat(ghost.identity().application()).isEqualTo("ghost");
            assertThat(ghost.since()).isEqualTo(Instant.ofEpochMilli(1700000000000L));
        }
    }

    @Test
    void keysOfAnotherTypeAreRefusedWithTheKeyNamed() throws Exception {
        LockClient client = client("a");
        raw.sync().set(recordKey(name), "not a record");
        assertThatThrownBy(() -> client.inspectLeader(name)).isInstanceOf(NotALockException.class)
                .hasMessageContaining(recordKey(name)).hasMessageContaining("string");
        LeaderElection election = candidate(client);
        election.start();
        assertThat(election.awaitLeadership(Duration.ofMillis(800))).as("a win would overwrite the key").isEmpty();
        assertThat(raw.sync().get(recordKey(name))).isEqualTo("not a record");
        assertThat(raw.exists(name)).as("nothing taken").isFalse();
        election.close();

        raw.sync().del(recordKey(name));
        raw.sync().set(name, "a string");
        assertThatThrownBy(() -> client.inspectLeader(name)).isInstanceOf(NotALockException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining("string");
    }
}
