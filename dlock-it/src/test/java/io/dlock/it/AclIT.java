package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.MultiLock;
import io.dlock.Permit;
import io.dlock.SemaphoreInfo;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.TuningSettings;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Subscribers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Redis user with exactly the least ACL rule that the README ("Redis ACL") documents, for names starting with
 * {@code lock:}, runs every lock kind, a multi-lock, both semaphores and a count-down latch, contention and wake-ups
 * included, on a standalone server and on a cluster. A user without the channels is refused at connect; a release that
 * may not publish leaves the lock held; each permission the semaphores and the latch add to the rule is needed.
 */
@Timeout(value = 120, unit = SECONDS)
class AclIT {
    static final String USER = "dlock-app";
    static final String PASSWORD = "acl-test-pw";
    static final String PROBE = "lock:dlock-probe";

    /** The keys of every lock whose name starts with {@code lock:} (README, "Redis ACL"). */
    static final List<String> KEYS = List.of("~lock:*", "~{lock:*",
            "~redisson_lock_queue:{lock:*", "~redisson_lock_queue:lock:*",
            "~redisson_lock_timeout:{lock:*", "~redisson_lock_timeout:lock:*",
            "~redisson_lock_token:{lock:*", "~redisson_lock_token:lock:*",
            "~dlock_rwlock_writers:{lock:*", "~dlock_rwlock_writers:lock:*",
            "~dlock_leader:{lock:*", "~dlock_leader:lock:*", "~dlock_client:*");
    /** The channels of those locks, semaphores and latches. */
    static final List<String> CHANNELS = List.of("&redisson_lock__channel:{lock:*", "&redisson_lock__channel:lock:*",
            "&redisson_rwlock:{lock:*", "&redisson_rwlock:lock:*", "&redisson_sc:{lock:*", "&redisson_sc:lock:*",
            "&redisson_countdownlatch__channel__{lock:*", "&dlock_leader__channel:{lock:*",
            "&dlock_leader__channel:lock:*");
    /** Commands the client sends itself (on Redis 6.2 and 7.x). */
    static final List<String> CLIENT_COMMANDS = List.of("+evalsha", "+eval", "+info", "+ping", "+publish",
            "+subscribe", "+unsubscribe", "+wait", "+cluster|slots", "+cluster|nodes");
    /** More commands of Redis 7: sharded pub/sub (a cluster's). */
    static final List<String> CLIENT_COMMANDS_7 = List.of("+spublish", "+ssubscribe", "+sunsubscribe",
            "+pubsub|shardnumsub");
    /** Commands the lock scripts call. */
    static final List<String> SCRIPT_COMMANDS = List.of("+exists", "+type", "+del", "+pexpire", "+pttl", "+time",
            "+get", "+set", "+incrby", "+hget", "+hset", "+hdel", "+hexists", "+hincrby", "+hgetall", "+hlen",
            "+lindex", "+lpop", "+lpos", "+rpush", "+lrem", "+lrange", "+zadd", "+zrem", "+zscore", "+zincrby",
            "+zrange", "+zremrangebyscore", "+zcard", "+decr", "+decrby", "+zrangebyscore");

    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void close() throws Exception {
        threads.shutdownNow();
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    static List<String> rule(String version, boolean withChannels, List<String> channels) {
        // resetchannels: on 6.2 "reset" allows every channel (acl-pubsub-default allchannels)
        List<String> rule = new ArrayList<>(List.of("reset", "resetchannels", "on", ">" + PASSWORD));
        rule.addAll(KEYS);
        if (withChannels) {
            rule.addAll(channels);
        }
        rule.addAll(CLIENT_COMMANDS);
        if (Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7) {
            rule.addAll(CLIENT_COMMANDS_7);
        }
        rule.addAll(SCRIPT_COMMANDS);
        return rule;
    }

    /** The README's rule without {@code entry} (a key, channel or command pattern). */
    static List<String> ruleWithout(String version, String entry) {
        List<String> rule = rule(version, true, CHANNELS);
        assertThat(rule.remove(entry)).as("the rule has %s", entry).isTrue();
        return rule;
    }

    static void setUser(RedisServer node, List<String> rule) {
        try (RawRedis raw = RawRedis.connect(node.uri())) {
            CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add(USER);
            rule.forEach(args::add);
            assertThat(raw.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args))
                    .isEqualTo("OK");
        }
    }

    private RedisServer standalone(boolean withChannels, List<String> channels) {
        RedisServer redis = RedisServer.start();
        cleanup.add(redis);
        setUser(redis, rule(redis.version(), withChannels, channels));
        return redis;
    }

    private LockClient client(String uri) {
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(uri)
                .tuning(TuningSettings.builder().probeLockName(PROBE).build()).build());
        cleanup.add(client);
        return client;
    }

    static String withUser(String uri) {
        int start = uri.indexOf("://") + 3;
        return uri.substring(0, start) + USER + ":" + PASSWORD + "@" + uri.substring(start);
    }

    @Test
    void aUserWithExactlyTheRuleRunsEveryLockKindOnAStandaloneServer() throws Exception {
        RedisServer redis = standalone(true, CHANNELS);
        String uri = withUser(redis.uri());
        LockClient a = client(uri);
        LockClient b = client(uri);
        everyLockKindWithContention(a, b, redis.uri());
        semaphoresAndLatchesWithContention(a, b, redis.uri());
    }

    @Test
    void aUserWithExactlyTheRuleRunsEveryLockKindOnACluster() throws Exception {
        ClusterTopology cluster = ClusterTopology.start();
        cleanup.add(cluster);
        for (RedisServer node : cluster.nodes()) {
            setUser(node, rule(node.version(), true, CHANNELS));
        }
        String uri = withUser(cluster.uri());
        LockClient a = client(uri);
        LockClient b = client(uri);
        everyLockKindWithContention(a, b, cluster.uri());
        semaphoresAndLatchesWithContention(a, b, cluster.uri());
    }

    /**
     * A leader election with the README's user: a candidate wins, anyone reads and observes who leads. Without the
     * leader record's key pattern the win is refused (nothing taken).
     */
    @Test
    void aUserWithExactlyTheRuleElectsReadsAndObservesALeader() throws Exception {
        RedisServer redis = standalone(true, CHANNELS);
        String uri = withUser(redis.uri());
        LockClient a = client(uri);
        LockClient b = client(uri);
        List<io.dlock.LeaderChange> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        b.observeLeader("lock:leader", told::add);
        io.dlock.LeaderElection election = a.getLeaderElection("lock:leader");
        cleanup.add(election);
        election.start();
        long epoch = election.awaitLeadership(Duration.ofSeconds(10)).orElseThrow().epoch();
        assertThat(b.inspectLeader("lock:leader").orElseThrow().epoch()).isEqualTo(epoch);
        Await.until(Duration.ofSeconds(5), () -> told.stream().anyMatch(c -> c.current()
                .map(l -> l.epoch() == epoch).orElse(false)), () -> "the observer is told: " + told);

        setUser(redis, ruleWithout(redis.version(), "~dlock_leader:{lock:*"));
        io.dlock.LeaderElection refused = client(uri).getLeaderElection("lock:refused");
        cleanup.add(refused);
        refused.start();
        assertThat(refused.awaitLeadership(Duration.ofSeconds(1))).as("a win that may not write its record")
                .isEmpty();
        try (RawRedis raw = RawRedis.connect(redis.uri())) {
            assertThat(raw.exists("lock:refused")).as("nothing taken").isFalse();
        }
    }

    /**
     * The clients' cards ({@code ~dlock_client:*}) give the holders their identity; a user without them locks as well,
     * and its holds show without identity.
     */
    @Test
    void theCardsNameTheHoldersAndAUserWithoutThemStillLocks() {
        RedisServer redis = RedisServer.start();
        cleanup.add(redis);
        String uri = withUser(redis.uri());
        setUser(redis, rule(redis.version(), true, CHANNELS));
        LockClient named = client(uri);
        DistributedLock lock = named.getLock("lock:named");
        lock.lock();
        assertThat(named.inspect("lock:named").holders().get(0).identity()).contains(named.identity());
        lock.unlock();

        setUser(redis, ruleWithout(redis.version(), "~dlock_client:*"));
        LockClient unnamed = client(uri);
        DistributedLock other = unnamed.getLock("lock:unnamed");
        other.lock();
        try (RawRedis raw = RawRedis.connect(redis.uri())) {
            assertThat(raw.exists("dlock_client:{" + unnamed.getId() + "}")).as("its card could not be written")
                    .isFalse();
        }
        assertThat(unnamed.inspect("lock:unnamed").holders()).singleElement()
                .satisfies(h -> assertThat(h.identity()).isEmpty());
        other.unlock();
    }

    /**
     * Each command and channel that the semaphores and the latch add to the rule is needed: without it, an operation
     * that uses it is refused by Redis (and changes nothing).
     */
    @Test
    void everyPermissionTheSemaphoresAndTheLatchAddIsNeeded() throws Exception {
        RedisServer redis = RedisServer.start();
        cleanup.add(redis);
        String uri = withUser(redis.uri());
        try (RawRedis raw = RawRedis.connect(redis.uri())) {
            setUser(redis, ruleWithout(redis.version(), "+decr"));
            raw.sync().set("lock:latch-decr", "2");
            DistributedCountDownLatch latch = client(uri).getCountDownLatch("lock:latch-decr");
            assertThatThrownBy(latch::countDown).isInstanceOf(LockException.class).hasMessageContaining("decr");
            assertThat(raw.sync().get("lock:latch-decr")).isEqualTo("2");

            setUser(redis, ruleWithout(redis.version(), "+decrby"));
            raw.sync().set("lock:sem-decrby", "2");
            DistributedSemaphore sem = client(uri).getSemaphore("lock:sem-decrby");
            assertThatThrownBy(sem::tryAcquire).isInstanceOf(LockException.class).hasMessageContaining("decrby");
            assertThat(raw.sync().get("lock:sem-decrby")).isEqualTo("2");

            // the acquire's first read of the permit table is its earliest entry (ZRANGE); ZRANGEBYSCORE runs only
            // when that one has expired
            setUser(redis, ruleWithout(redis.version(), "+zrange"));
            LeasedSemaphore pes = client(uri).getLeasedSemaphore("lock:pes-zrange");
            assertThatThrownBy(pes::tryAcquire).isInstanceOf(LockException.class)
                    .hasMessageContaining("zrange");

            setUser(redis, ruleWithout(redis.version(), "&redisson_sc:{lock:*"));
            DistributedSemaphore unannounced = client(uri).getSemaphore("lock:sem-channel");
            assertThatThrownBy(() -> unannounced.trySetPermits(1)).isInstanceOf(LockException.class)
                    .hasMessageContaining("publish");
            assertThat(raw.exists("lock:sem-channel")).as("nothing written").isFalse();

            setUser(redis, ruleWithout(redis.version(), "&redisson_countdownlatch__channel__{lock:*"));
            DistributedCountDownLatch silent = client(uri).getCountDownLatch("lock:latch-channel");
            assertThatThrownBy(() -> silent.trySetCount(1)).isInstanceOf(LockException.class)
                    .hasMessageContaining("publish");
            assertThat(raw.exists("lock:latch-channel")).as("nothing written").isFalse();
        }
    }

    @Test
    void aUserWithoutChannelPermissionIsRefusedAtConnect() {
        RedisServer redis = standalone(false, CHANNELS);
        assertThatThrownBy(() -> client(withUser(redis.uri())))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("may not publish on channel 'redisson_lock__channel:{" + PROBE + "}'")
                .hasMessageContaining("NOPERM")
                .hasMessageContaining("Redis ACL")
                .hasMessageNotContaining(PASSWORD);
    }

    @Test
    void aProbeNameOutsideTheRuleIsRefusedAtConnectNamingTheSetting() {
        RedisServer redis = standalone(true, CHANNELS);
        assertThatThrownBy(() -> LockClient.connect(withUser(redis.uri())).close())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("'redisson_lock__channel:{dlock-probe}'")
                .hasMessageContaining("probeLockName");
    }

    /**
     * A user allowed every key but the probe's channels only: it connects, but may not publish on the channels of
     * lock:…. Its releases fail with the lock still held, as it was: the publish runs before the lock is freed (every
     * key allowed, so that a channel passed as a script key would not be refused first).
     */
    @Test
    void aReleaseThatMayNotPublishFailsWithTheLockStillHeld() {
        RedisServer redis = standalone(true, List.of("~*", "&redisson_lock__channel:{" + PROBE + "}*",
                "&redisson_rwlock:{" + PROBE + "}"));
        LockClient client = client(withUser(redis.uri()));
        try (RawRedis raw = RawRedis.connect(redis.uri())) {
            DistributedLock plain = client.getLock("lock:plain");
            plain.lock();
            assertThatThrownBy(plain::unlock).isInstanceOf(LockException.class).hasMessageContaining("publish");
            assertThat(raw.hgetall("lock:plain")).as("still held").hasSize(1).containsValue("1");
            assertThatThrownBy(plain::forceUnlock).isInstanceOf(LockException.class);
            assertThat(raw.exists("lock:plain")).isTrue();

            DistributedReadWriteLock rw = client.getReadWriteLock("lock:rw");
            rw.writeLock().lock();
            assertThatThrownBy(() -> rw.writeLock().unlock()).isInstanceOf(LockException.class);
            assertThat(raw.hgetall("lock:rw")).containsEntry("mode", "write").hasSize(2);

            DistributedReadWriteLock read = client.getReadWriteLock("lock:read");
            read.readLock().lock();
            assertThatThrownBy(() -> read.readLock().unlock()).isInstanceOf(LockException.class);
            assertThat(raw.hgetall("lock:read")).containsEntry("mode", "read").hasSize(2);
            assertThat(raw.keys()).anyMatch(key -> key.startsWith("{lock:read}:") && key.endsWith(":rwlock_timeout:1"));
        }
    }

    private void everyLockKindWithContention(LockClient a, LockClient b, String adminUri) throws Exception {
        try (RawRedis raw = RawRedis.connect(adminUri)) {
            contend(raw, a.getLock("lock:plain"), b.getLock("lock:plain"));
            contend(raw, a.getLock("lock:{tagged}plain"), b.getLock("lock:{tagged}plain"));
            contend(raw, a.getFairLock("lock:fair"), b.getFairLock("lock:fair"));
            contend(raw, a.getFencedLock("lock:fenced"), b.getFencedLock("lock:fenced"));
            DistributedReadWriteLock rwA = a.getReadWriteLock("lock:rw");
            DistributedReadWriteLock rwB = b.getReadWriteLock("lock:rw");
            contend(raw, rwA.writeLock(), rwB.writeLock());
            contend(raw, rwA.writeLock(), rwB.readLock());
            contend(raw, rwA.readLock(), rwB.writeLock());
            DistributedReadWriteLock taggedA = a.getReadWriteLock("lock:{tagged}rw");
            contend(raw, taggedA.readLock(), b.getReadWriteLock("lock:{tagged}rw").writeLock());
        }
        // a fair lock: a second waiter leaves the line (give up) while the first waits
        DistributedLock fair = a.getFairLock("lock:fair");
        fair.lock();
        assertThat(threads.submit(() -> b.getFairLock("lock:fair").tryLock(200, TimeUnit.MILLISECONDS))
                .get(10, SECONDS)).isFalse();
        fair.unlock();
        assertThat(a.inspect("lock:fair")).isNotNull();
        assertThat(b.getFencedLock("lock:fenced").forceUnlock()).isFalse();
    }

    /**
     * Both semaphores and the latch (names with and without their own hash tag), and a multi-lock, under the rule: a
     * waiter of one client subscribes to the object's channel (checked with the admin's {@code PUBSUB}) and is woken
     * by the other client's release or count-down, which publishes there; inspection reads them.
     */
    private void semaphoresAndLatchesWithContention(LockClient a, LockClient b, String adminUri) throws Exception {
        try (RawRedis raw = RawRedis.connect(adminUri)) {
            for (String name : List.of("lock:sem", "lock:{tagged}sem")) {
                DistributedSemaphore held = a.getSemaphore(name);
                assertThat(held.trySetPermits(1)).isTrue();
                held.acquire();
                Future<Boolean> waiter = threads.submit(() -> b.getSemaphore(name).tryAcquire(1, Duration.ofSeconds(20)));
                awaitSubscriber(raw, name.contains("{") ? "redisson_sc:" + name : "redisson_sc:{" + name + "}");
                long releasedAt = System.nanoTime();
                held.release();
                assertThat(waiter.get(20, SECONDS)).isTrue();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).isLessThan(2000);
                assertThat(a.inspectSemaphore(name).availablePermits()).isZero();
                b.getSemaphore(name).release();
                assertThat(held.availablePermits()).isEqualTo(1);
            }
            for (String name : List.of("lock:pes", "lock:{tagged}pes")) {
                LeasedSemaphore ours = a.getLeasedSemaphore(name);
                assertThat(ours.trySetPermits(1)).isTrue();
                Permit permit = ours.acquire();
                Future<Optional<Permit>> waiter = threads.submit(() -> b.getLeasedSemaphore(name)
                        .tryAcquire(Duration.ofSeconds(20), Duration.ofSeconds(30)));
                awaitSubscriber(raw, name.contains("{") ? "redisson_sc:" + name : "redisson_sc:{" + name + "}");
                assertThat(a.inspectSemaphore(name).permits()).extracting(SemaphoreInfo.PermitLease::id)
                        .containsExactly(permit.id());
                long releasedAt = System.nanoTime();
                assertThat(permit.release()).isTrue();
                Permit theirs = waiter.get(20, SECONDS).orElseThrow();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).isLessThan(2000);
                assertThat(ours.acquiredPermits()).isEqualTo(1);
                assertThat(ours.release(theirs.id())).isTrue();
                assertThat(theirs.release()).isFalse();
                assertThat(ours.delete()).isTrue();
            }
            for (String name : List.of("lock:latch", "lock:{tagged}latch")) {
                DistributedCountDownLatch latch = a.getCountDownLatch(name);
                assertThat(latch.trySetCount(1, Duration.ofMinutes(1))).isTrue();
                Future<Boolean> awaiter = threads.submit(() -> b.getCountDownLatch(name).await(Duration.ofSeconds(20)));
                awaitSubscriber(raw, "redisson_countdownlatch__channel__{" + name + "}");
                assertThat(a.inspectCountDownLatch(name).count()).isEqualTo(1);
                long openedAt = System.nanoTime();
                latch.countDown();
                assertThat(awaiter.get(20, SECONDS)).isTrue();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openedAt)).isLessThan(2000);
                assertThat(latch.getCount()).isZero();
            }
            MultiLock both = a.getMultiLock(a.getLock("lock:m1"), a.getFairLock("lock:{tagged}m2"));
            both.lock();
            assertThat(threads.submit(() -> b.getLock("lock:m1").tryLock(100, TimeUnit.MILLISECONDS)).get(10, SECONDS))
                    .isFalse();
            both.unlock();
        }
    }

    /** Waits until somebody listens on {@code channel}, plainly or sharded: a waiter may subscribe under the rule. */
    private static void awaitSubscriber(RawRedis raw, String channel) {
        Await.until(Duration.ofSeconds(10), () -> raw.subscribers(channel) + raw.shardSubscribers(channel) >= 1,
                () -> "nobody subscribed to " + channel + "; channels: " + raw.channels());
    }

    /**
     * {@code holder} holds (watchdog lease: 30 s); {@code waiter}, on another thread, waits (subscribed to the lock's
     * channel, as the admin's {@code PUBSUB} shows) and must get the lock within 2 s of the release: it was woken by
     * the unlock message, not by the lease running out.
     */
    private void contend(RawRedis raw, DistributedLock holder, DistributedLock waiter) throws Exception {
        String name = holder.getName();
        Subscribers.await(raw, name, 0); // the last round's waiter has left the channel
        holder.lock();
        Future<Long> acquiredAt = threads.submit(() -> {
            assertThat(waiter.tryLock(20, SECONDS)).isTrue();
            long at = System.nanoTime();
            waiter.unlock();
            return at;
        });
        Subscribers.await(raw, name, 1);
        assertThat(acquiredAt).as("waiting while held").isNotDone();
        long releasedAt = System.nanoTime();
        holder.unlock();
        long wokenAfterMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(20, SECONDS) - releasedAt);
        assertThat(wokenAfterMs).as("woken by the release").isLessThan(2000);
    }
}
