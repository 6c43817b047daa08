package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code dlock watch} with stdout not a terminal: one line per change. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class WatchIT {

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    @Test
    void printsALineWhenTheHoldersChange(RedisServer redis, LockClient client) {
        DlockProcess watch = DlockProcess.start("watch", "--redis", redis.uri(), "--interval", "100ms", "job");
        Await.until(Duration.ofSeconds(20), () -> watch.stdout().contains(" job: free\n"), watch::describe);

        DistributedLock lock = client.getLock("job");
        lock.lock();
        String holder = client.getId() + ":" + Thread.currentThread().getId();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().contains(" job: locked by " + holder + ", ttl "),
                watch::describe);
        // the holder's client, named by its card
        assertThat(watch.stdout()).contains(", queue: empty; on " + client.identity().host() + " pid "
                + ProcessHandle.current().pid() + "\n");
        lock.lock();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().contains("locked by " + holder + " (x2)"),
                watch::describe);
        lock.unlock();
        lock.unlock();
        Await.until(Duration.ofSeconds(5), () -> watch.stdout().lines().filter(l -> l.endsWith(" job: free")).count()
                == 2, watch::describe);
        // the TTL changes all the time, but is not a change worth a line
        assertThat(watch.stdout().lines()).as(watch.describe()).hasSize(4);
        assertThat(watch.stdout().lines()).allMatch(l -> l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} job: .*"));
        assertThat(watch.process.isAlive()).isTrue();
        watch.process.destroy();
        watch.waitFor(Duration.ofSeconds(10));
        assertThat(watch.stderr()).isEmpty();
    }
}
