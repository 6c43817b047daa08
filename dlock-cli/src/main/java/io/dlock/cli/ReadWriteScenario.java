package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/** The read-write lock: two readers (two clients) hold it at once; a writer waits until both have left. */
final class ReadWriteScenario extends DemoScenario {
    private static final long LEASE = DistributedLock.LEASE_WATCHDOG;
    /** Owner 1 on each client: a hold's owner is the client id with the owner id, so these are three owners. */
    private static final LockOwner OWNER = LockOwner.of(1);

    ReadWriteScenario() {
        super("Read-write lock: readers share, a writer waits for them", "rw");
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws Exception {
        LockClient r1 = context.newClient(null);
        LockClient r2 = context.newClient(null);
        LockClient w = context.newClient(null);
        DistributedReadWriteLock rw1 = r1.getReadWriteLock(name).as(OWNER);
        DistributedReadWriteLock rw2 = r2.getReadWriteLock(name).as(OWNER);
        DistributedReadWriteLock rwW = w.getReadWriteLock(name).as(OWNER);
        boolean read1 = rw1.readLock().tryLockAsync(0, LEASE, MILLISECONDS).get(5, TimeUnit.SECONDS);
        boolean read2 = rw2.readLock().tryLockAsync(0, LEASE, MILLISECONDS).get(5, TimeUnit.SECONDS);
        context.say("two readers (two clients) -> " + LockInfoFormat.summary(r1.inspect(name)));
        context.check("both readers hold it at once", read1 && read2 && r1.inspect(name).holders().size() == 2);
        CompletableFuture<Void> writer = rwW.writeLock().lockAsync(LEASE, MILLISECONDS);
        boolean waited = ScenarioContext.holdsFor(() -> !writer.isDone(), Duration.ofMillis(500));
        context.say("a writer asks for it        -> still " + LockInfoFormat.summary(r1.inspect(name)));
        context.check("the writer waits while readers hold it", waited);
        rw1.readLock().unlockAsync().get(5, TimeUnit.SECONDS);
        boolean stillWaiting = ScenarioContext.holdsFor(() -> !writer.isDone(), Duration.ofMillis(300));
        context.say("first reader releases       -> " + LockInfoFormat.summary(r1.inspect(name)));
        context.check("the writer still waits for the second reader", stillWaiting);
        long released = System.nanoTime();
        rw2.readLock().unlockAsync().get(5, TimeUnit.SECONDS);
        boolean got;
        try {
            writer.get(5, TimeUnit.SECONDS);
            got = true;
        } catch (TimeoutException e) {
            got = false;
        }
        long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        context.say("second reader releases      -> " + LockInfoFormat.summary(r1.inspect(name)));
        context.check("the writer gets it once the last reader left (" + DurationText.formatMillis(afterMs) + " later)",
                got);
        if (got) {
            rwW.writeLock().unlockAsync().get(5, TimeUnit.SECONDS);
        }
        return true;
    }
}
