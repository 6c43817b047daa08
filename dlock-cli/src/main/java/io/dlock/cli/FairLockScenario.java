package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import io.dlock.redisprocess.Await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

/** The fair lock: four owners queue up behind a holder and get the lock in the order they asked for it. */
final class FairLockScenario extends DemoScenario {
    private static final long LEASE = DistributedLock.LEASE_WATCHDOG;

    FairLockScenario() {
        super("Fair lock: granted in arrival order (FIFO)", "fair");
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws Exception {
        LockClient client = context.newClient(null);
        DistributedLock fair = client.getFairLock(name);
        long first = 100;
        context.say("owner " + first + " takes '" + name + "'; then owners 1, 2, 3, 4 ask for it, one after the other");
        context.check("owner " + first + " holds it", ownedBy(fair, first).tryLockAsync(0, LEASE, MILLISECONDS)
                .get(5, TimeUnit.SECONDS));
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            waiters.add(ownedBy(fair, i).lockAsync(LEASE, MILLISECONDS));
            int queued = i;
            try {
                Await.until(Duration.ofSeconds(5), () -> client.inspect(name).waiters().size() >= queued,
                        "owner " + i + " queued");
            } catch (IllegalStateException e) {
                context.check("owner " + i + " shows up in the queue", false);
                return false;
            }
        }
        context.say("queue: " + LockInfoFormat.queue(client.inspect(name)));
        ownedBy(fair, first).unlockAsync().get(5, TimeUnit.SECONDS);
        List<String> order = new ArrayList<>();
        boolean inOrder = true;
        for (int i = 1; i <= 4; i++) {
            CompletableFuture<Void> next = waiters.get(i - 1);
            try {
                next.get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                context.check("owner " + i + " gets the lock after owner " + (i - 1), false);
                return false;
            }
            order.add(Integer.toString(i));
            for (int j = i + 1; j <= 4; j++) {
                inOrder &= !waiters.get(j - 1).isDone();
            }
            ownedBy(fair, i).unlockAsync().get(5, TimeUnit.SECONDS);
        }
        context.say("owner " + first + " releases; granted to owners " + String.join(", then ", order));
        context.check("granted in arrival order, each while the later ones still waited", inOrder);
        return true;
    }

    /** @return {@code lock} acting for the owner {@code id}, whatever thread calls it */
    private static DistributedLock ownedBy(DistributedLock lock, long id) {
        return lock.as(LockOwner.of(id));
    }
}
