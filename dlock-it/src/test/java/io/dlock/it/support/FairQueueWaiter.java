package io.dlock.it.support;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Child JVM of {@code FairLockOrderIT}: a fair-lock waiter to be killed while it waits. Connects, prints
 * {@code READY <clientId> <threadId>} (the owner field it will queue under), waits until the key {@code goKey} exists,
 * then blocks in {@code lock()} until it is killed. Exits by itself after two minutes, or when the test JVM goes away.
 *
 * <p>Usage: {@code FairQueueWaiter <redisUri> <lockName> <fairLockWaitTimeoutMillis> <goKey>}.
 */
public final class FairQueueWaiter {
    private FairQueueWaiter() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: FairQueueWaiter <redisUri> <lockName> <fairLockWaitTimeoutMillis> <goKey>");
            System.exit(2);
        }
        CounterWorker.dieWithParent();
        LockClientConfig config = LockClientConfig.builder()
                .redisUri(args[0])
                .fairLockWaitTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        try (LockClient client = LockClient.create(config); RawRedis raw = RawRedis.connect(args[0])) {
            DistributedLock lock = client.getFairLock(args[1]);
            System.out.println("READY " + client.getId() + " " + Thread.currentThread().getId());
            System.out.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (raw.sync().exists(args[3]) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    CounterWorker.log("no go signal within 60 s");
                    System.exit(3);
                }
                Thread.sleep(5);
            }
            CounterWorker.log("waiting for " + args[1]);
            lock.lock();
            System.out.println("LOCKED");
            System.out.flush();
            CounterWorker.log("acquired " + args[1] + " although it should have been killed first");
            Thread.sleep(Duration.ofMinutes(2).toMillis());
        }
        System.exit(5);
    }
}
