package io.dlock.it.support;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;

import java.time.Duration;

/**
 * Child JVM of {@code ReadWriteReaderCrashIT}: takes the read side of a read-write lock with a watchdog lease, prints
 * {@code LOCKED <clientId> <threadId>} on stdout and then sleeps (the watchdog keeps renewing) until it is killed.
 * Gives up by itself after two minutes, or when the test JVM goes away.
 *
 * <p>Usage: {@code ReadHoldAndHang <redisUri> <lockName> <watchdogMillis>}.
 */
public final class ReadHoldAndHang {
    private ReadHoldAndHang() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: ReadHoldAndHang <redisUri> <lockName> <watchdogMillis>");
            System.exit(2);
        }
        CounterWorker.dieWithParent();
        LockClientConfig config = LockClientConfig.builder()
                .redisUri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        LockClient client = LockClient.create(config);
        DistributedLock read = client.getReadWriteLock(args[1]).readLock();
        read.lock();
        System.out.println("LOCKED " + client.getId() + " " + Thread.currentThread().getId());
        System.out.flush();
        CounterWorker.log("reading " + args[1] + ", sleeping until killed");
        Thread.sleep(Duration.ofMinutes(2).toMillis());
        CounterWorker.log("not killed within two minutes, giving up");
        System.exit(5);
    }
}
