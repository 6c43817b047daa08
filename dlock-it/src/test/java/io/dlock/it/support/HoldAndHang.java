package io.dlock.it.support;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;

import java.time.Duration;

/**
 * Child JVM of {@code HolderCrashIT}: takes a watchdog lock, prints {@code LOCKED <clientId> <threadId>} on stdout and
 * then just sleeps (the watchdog keeps renewing) until it is killed. Gives up by itself after two minutes, or when the
 * test JVM goes away.
 *
 * <p>Usage: {@code HoldAndHang <redisUri> <lockName> <watchdogMillis> [<applicationName>]}.
 */
public final class HoldAndHang {
    private HoldAndHang() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: HoldAndHang <redisUri> <lockName> <watchdogMillis> [<applicationName>]");
            System.exit(2);
        }
        CounterWorker.dieWithParent();
        LockClientConfig.Builder config = LockClientConfig.builder()
                .redisUri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])));
        if (args.length == 4) {
            config.applicationName(args[3]);
        }
        LockClient client = LockClient.create(config.build());
        DistributedLock lock = client.getLock(args[1]);
        lock.lock();
        System.out.println("LOCKED " + client.getId() + " " + Thread.currentThread().getId());
        System.out.flush();
        CounterWorker.log("holding " + args[1] + ", sleeping until killed");
        Thread.sleep(Duration.ofMinutes(2).toMillis());
        CounterWorker.log("not killed within two minutes, giving up");
        System.exit(5);
    }
}
