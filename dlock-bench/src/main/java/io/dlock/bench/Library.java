package io.dlock.bench;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.metrics.LockMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * One lock library under test, seen through {@code java.util.concurrent.locks}: both dlock and Redisson implement
 * {@link Lock} and {@link ReadWriteLock}, so every scenario runs the same code against each.
 */
interface Library extends AutoCloseable {

    String name();

    Lock lock(String name);

    Lock fairLock(String name);

    ReadWriteLock readWriteLock(String name);

    @Override
    void close();

    /** dlock with {@code LockMetrics} bound to a registry: what metrics cost (rows "with metrics"). */
    String DLOCK_METERED = "dlock+metrics";

    /** dlock whose plain locks write hold records (rows "with hold details"): what holdDetails costs. */
    String DLOCK_DETAILED = "dlock+details";

    /**
     * Opens a client of {@code library} ("dlock", {@value #DLOCK_METERED}, {@value #DLOCK_DETAILED} or "redisson") on
     * {@code uri}.
     */
    static Library open(String library, String uri, Duration watchdog) {
        LockClientConfig.Builder dlock = LockClientConfig.builder().redisUri(uri).watchdogTimeout(watchdog);
        return switch (library) {
            case "dlock" -> new Dlock(library, LockClient.create(dlock.build()));
            case DLOCK_METERED -> {
                LockClient client = LockClient.create(dlock.build());
                LockMetrics.of(client).bindTo(new SimpleMeterRegistry()); // recording for the client's whole life
                yield new Dlock(library, client);
            }
            case DLOCK_DETAILED -> new Dlock(library, LockClient.create(dlock.holdDetails(true).build()));
            case "redisson" -> {
                Config config = new Config();
                config.setLockWatchdogTimeout(watchdog.toMillis());
                config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(24)
                        .setConnectionPoolSize(64).setSubscriptionConnectionPoolSize(50);
                yield new RedissonLibrary(Redisson.create(config));
            }
            default -> throw new IllegalArgumentException("unknown library: " + library);
        };
    }

    /** dlock, named "dlock", or one of its variants ({@value #DLOCK_METERED}, {@value #DLOCK_DETAILED}). */
    record Dlock(String name, LockClient client) implements Library {
        @Override
        public Lock lock(String name) {
            return client.getLock(name);
        }

        @Override
        public Lock fairLock(String name) {
            return client.getFairLock(name);
        }

        @Override
        public ReadWriteLock readWriteLock(String name) {
            return client.getReadWriteLock(name);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    record RedissonLibrary(RedissonClient client) implements Library {
        @Override
        public String name() {
            return "redisson";
        }

        @Override
        public Lock lock(String name) {
            return client.getLock(name);
        }

        @Override
        public Lock fairLock(String name) {
            return client.getFairLock(name);
        }

        @Override
        public ReadWriteLock readWriteLock(String name) {
            return client.getReadWriteLock(name);
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }
}
