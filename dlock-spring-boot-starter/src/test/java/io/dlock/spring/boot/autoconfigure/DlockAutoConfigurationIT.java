package io.dlock.spring.boot.autoconfigure;

import io.dlock.DistributedLock;
import io.dlock.HeldLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.RedisConnection;
import io.dlock.TuningSettings;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The auto-configured {@link LockClient} on a real Redis: where it connects, its settings, back-off, shutdown. */
@ExtendWith(RedisExtension.class)
class DlockAutoConfigurationIT {

    private final ApplicationContextRunner dlockOnly = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DlockAutoConfiguration.class));

    private final ApplicationContextRunner withSpringDataRedis = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DlockAutoConfiguration.class));

    @Test
    void startsFromPropertiesAloneAndClosesTheClientOnShutdown(RedisServer redis) {
        AtomicReference<LockClient> seen = new AtomicReference<>();
        dlockOnly.withPropertyValues("dlock.redis-uri=" + redis.uri(), "dlock.watchdog-timeout=2s",
                        "dlock.command-timeout=600ms", "dlock.tuning.local-handoffs=0", "dlock.tuning.spin-wait=0",
                        "dlock.tuning.probe-lock-name=app:probe", "spring.application.name=billing")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
                    LockClient client = context.getBean(LockClient.class);
                    seen.set(client);
                    assertThat(client.identity().application()).as("spring.application.name").isEqualTo("billing");
                    TuningSettings tuning = client.config().tuning();
                    assertThat(tuning.localHandoffs()).isZero();
                    assertThat(tuning.spinWait()).isZero();
                    assertThat(tuning.probeLockName()).isEqualTo("app:probe");
                    DistributedLock lock = client.getLock("orders:42");
                    lock.lock();
                    try {
                        assertThat(client.heldLocks()).singleElement().satisfies(h -> {
                            assertThat(h.name()).isEqualTo("orders:42");
                            assertThat(h.kind()).isEqualTo(LockKind.PLAIN);
                            assertThat(h.holdCount()).isEqualTo(1);
                            assertThat(h.renewedByWatchdog()).isTrue();
                            // the 2 s watchdog of dlock.watchdog-timeout, less the safety margin
                            assertThat(h.leaseValidFor()).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(2));
                        });
                    } finally {
                        lock.unlock();
                    }
                });
        assertThatThrownBy(() -> seen.get().getLock("orders:42").lock()).isInstanceOf(LockException.class);
    }

    @Test
    void followsSpringDataRedisPropertiesWhenDlockHasNoUri(RedisServer redis) {
        String password = "p@ss w/rd%:?";
        aclUser(redis, "app", password);
        withSpringDataRedis.withPropertyValues("spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.port(), "spring.data.redis.username=app",
                        "spring.data.redis.password=" + password, "spring.data.redis.database=3")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockClient client = context.getBean(LockClient.class);
                    DlockConnectionDetails details = context.getBean(DlockConnectionDetails.class);
                    assertThat(details.getOrigin()).isEqualTo("spring.data.redis.*");
                    assertThat(details.getRedisUri()).as("no URI is made of Spring's values").isNull();
                    assertThat(client.config().connection()).hasValueSatisfying(c -> {
                        assertThat(c.kind()).isEqualTo(RedisConnection.Kind.STANDALONE);
                        assertThat(c.database()).isEqualTo(3);
                        assertThat(c.username()).contains("app");
                        assertThat(c.password()).isEqualTo(password.toCharArray());
                    });
                    assertThat(client.config().toString()).doesNotContain(password);
                    assertThat(client.getLock("jobs:nightly").tryLock()).isTrue();
                    assertThat(client.inspect("jobs:nightly").holders()).hasSize(1);
                    client.getLock("jobs:nightly").unlock();
                });
    }

    /** Adds an ACL user who may do everything, so that a wrong user name or password fails to connect. */
    static void aclUser(RedisServer redis, String user, String password) {
        RedisClient lettuce = RedisClient.create(RedisURI.create(redis.uri()));
        try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
            connection.sync().aclSetuser(user, AclSetuserArgs.Builder.on().addPassword(password).allKeys()
                    .allChannels().allCommands());
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void followsSpringDataRedisUrl(RedisServer redis) {
        withSpringDataRedis.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + redis.port() + "/2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LockClient.class).getFairLock("reports").tryLock()).isTrue();
                    assertThat(context.getBean(LockClient.class).heldLocks()).singleElement()
                            .extracting(HeldLock::kind).isEqualTo(LockKind.FAIR);
                });
    }

    @Test
    void dlockRedisUriWinsOverSpringDataRedis(RedisServer redis) {
        withSpringDataRedis.withPropertyValues("spring.data.redis.port=1", "dlock.redis-uri=" + redis.uri())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DlockConnectionDetails.class).getOrigin()).isEqualTo("dlock.redis-uri");
                    assertThat(context.getBean(LockClient.class).getLock("a").tryLock()).isTrue();
                });
    }

    @Test
    void usesTheConnectionDetailsBeanOfAServiceConnection(RedisServer redis) {
        withSpringDataRedis.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of(redis.host(), redis.port());
                    }
                })
                .withPropertyValues("spring.data.redis.port=1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LockClient.class).getReadWriteLock("doc").writeLock().tryLock())
                            .isTrue();
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnClient(RedisServer redis) {
        dlockOnly.withUserConfiguration(OwnClient.class)
                .withPropertyValues("dlock.redis-uri=redis://127.0.0.1:1", "own.uri=" + redis.uri())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockClient.class);
                    assertThat(context.getBean(LockClient.class)).isSameAs(context.getBean("ownClient"));
                });
    }

    @Test
    void customizersAdjustTheSettings(RedisServer redis) {
        dlockOnly.withPropertyValues("dlock.redis-uri=" + redis.uri())
                .withBean(LockClientConfigCustomizer.class, () -> b -> b.watchdogTimeout(Duration.ofSeconds(7)))
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    DistributedLock lock = client.getLock("c");
                    lock.lock();
                    assertThat(lock.leaseValidFor()).isBetween(Duration.ofSeconds(6), Duration.ofSeconds(7));
                    lock.unlock();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean
        LockClient ownClient(org.springframework.core.env.Environment env) {
            return LockClient.connect(env.getProperty("own.uri"));
        }
    }
}
