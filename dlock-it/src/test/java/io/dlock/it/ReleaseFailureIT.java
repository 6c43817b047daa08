package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A release whose script does not run (here: the server refuses scripts to the holder's ACL user, as a failover's
 * {@code READONLY} or a cut connection would make it fail) throws {@link LockException}; then the client must not
 * keep the lock alive: it stops renewing it, the hold ends in Redis with its current lease, another client gets the
 * lock, and an owner that still believed in outer acquisitions is told ({@code EXPIRED}) when the lease ends.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = ReleaseFailureIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class ReleaseFailureIT {
    static final int WATCHDOG_MS = 900;
    /** Room for scheduling on a slow machine. */
    private static final long SLACK_MS = 1500;

    private static final String HOLDER_USER = "holder";
    private static final String HOLDER_PASSWORD = "holder-secret";

    private String name;
    private RawRedis raw;
    private Workers workers;
    private RedisServer server;
    private final List<LockClient> own = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        this.server = server;
        name = "it:ReleaseFailureIT:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
        workers = new Workers("release-failure-worker");
        raw.sync().aclSetuser(HOLDER_USER, AclSetuserArgs.Builder.on().addPassword(HOLDER_PASSWORD).allKeys()
                .allChannels().allCommands());
    }

    @AfterEach
    void tearDown() {
        try {
            own.forEach(LockClient::close);
            raw.sync().aclDeluser(HOLDER_USER);
        } finally {
            workers.close();
            raw.close();
        }
    }

    /** A client of its own ACL user, whose scripts the test can refuse without touching the other clients. */
    private LockClient holderClient() {
        LockClient client = LockClient.create(LockClientConfig.builder()
                .redisUri("redis://" + HOLDER_USER + ":" + HOLDER_PASSWORD + "@" + server.host() + ":" + server.port())
                .watchdogTimeout(Duration.ofMillis(WATCHDOG_MS)).build());
        own.add(client);
        return client;
    }

    private void refuseScripts() {
        raw.sync().aclSetuser(HOLDER_USER, AclSetuserArgs.Builder.removeCommand(CommandType.EVALSHA)
                .removeCommand(CommandType.EVAL));
    }

    private void allowScripts() {
        raw.sync().aclSetuser(HOLDER_USER, AclSetuserArgs.Builder.allCommands());
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aFailedLastReleaseStopsRenewalSoTheLockExpiresAndAnotherClientGetsIt(LockKind kind, LockClient b)
            throws Exception {
        LockClient a = holderClient();
        DistributedLock lock = a.getLock(kind, name);
        lock.lock();
        DistributedLock other = kind == LockKind.READ ? b.getReadWriteLock(name).writeLock() : b.getLock(kind, name);
        Future<Long> waiter = workers.submit(() -> {
            other.lock();
            long at = System.nanoTime();
            other.unlock();
            return at;
        });
        Leaks.awaitWaiters(b, 1);

        refuseScripts();
        long failedAt = System.nanoTime();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class)
                .hasMessageContaining(name).hasMessageContaining("NOPERM").hasMessageContaining("no longer renews");
        allowScripts();
        assertThat(lock.leaseValidFor()).as("the owner let go").isEqualTo(Duration.ZERO);
        assertThat(Leaks.diagnostics(a).renewedHolds()).as("renewed holds of the client").isZero();

        long acquiredAt = Workers.get(waiter, Duration.ofSeconds(20));
        assertThat(Duration.ofNanos(acquiredAt - failedAt).toMillis())
                .as("ms until another client had the lock").isLessThan(WATCHDOG_MS + SLACK_MS);
        Await.until(Duration.ofSeconds(5), () -> raw.keys().stream().noneMatch(k -> k.contains(name)
                && !k.startsWith("redisson_lock_token:") && raw.pttl(k) == -1),
                () -> "a key without TTL: " + raw.keys());
        Leaks.assertClientIdle(a);
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aFailedPartialReleaseStopsRenewalAndTellsTheOwnerWhenTheLeaseEnds(LockKind kind) {
        LockClient a = holderClient();
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        DistributedLock lock = a.getLock(kind, name);
        lock.lock();
        lock.lock();

        refuseScripts();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class).hasMessageContaining("no longer renews");
        allowScripts();

        String field = RawRedis.field(a.getId(), Thread.currentThread().getId());
        Await.until(Duration.ofMillis(WATCHDOG_MS + SLACK_MS), () -> !lost.isEmpty(),
                "the owner should be told that its outer hold ended");
        assertThat(lost).singleElement().satisfies(event -> {
            assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.EXPIRED);
            assertThat(event.lockName()).isEqualTo(name);
        });
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
        Await.until(Duration.ofSeconds(3), () -> raw.sync().hget(name, field) == null
                        && raw.sync().hget(name, field + ":write") == null,
                () -> "the hold should be gone from Redis: " + raw.hgetall(name));
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        Leaks.assertClientIdle(a);
    }
}
