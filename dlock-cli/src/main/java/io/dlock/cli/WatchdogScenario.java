package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The watchdog: a short watchdog lease keeps a longer hold alive, its TTL never above the lease. */
final class WatchdogScenario extends DemoScenario {
    private static final long WATCHDOG_MS = 2000;
    private static final long HOLD_MS = 5000;

    WatchdogScenario() {
        super("Watchdog: a " + DurationText.formatMillis(WATCHDOG_MS) + " lease kept alive for a "
                + DurationText.formatMillis(HOLD_MS) + " hold", "watchdog");
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws InterruptedException {
        LockClient holder = context.newClient(Duration.ofMillis(WATCHDOG_MS));
        LockClient other = context.newClient(null);
        AtomicInteger lost = new AtomicInteger();
        holder.addLeaseLostListener(event -> lost.incrementAndGet());
        DistributedLock lock = holder.getLock(name);
        context.say("lock() with a watchdog lease of " + DurationText.formatMillis(WATCHDOG_MS)
                + ", renewed every third of it; holding " + DurationText.formatMillis(HOLD_MS) + ":");
        long start = System.nanoTime();
        lock.lock();
        boolean heldThroughout = true;
        long maxTtl = 0;
        for (int second = 1; second * 1000L <= HOLD_MS; second++) {
            sleepUntil(start, second * 1000L);
            LockInfo info = holder.inspect(name);
            boolean held = info.holders().stream().anyMatch(h -> h.clientId().equals(holder.getId()));
            heldThroughout &= held;
            maxTtl = Math.max(maxTtl, info.ttlMillis());
            context.say(String.format(Locale.ROOT, "  t=%ds  %s, ttl %s", second, held ? "held" : "NOT HELD",
                    LockInfoFormat.ttl(info.ttlMillis())));
        }
        context.check("held for " + DurationText.formatMillis(HOLD_MS) + ", " + (HOLD_MS / (double) WATCHDOG_MS)
                + "x the lease, with the TTL never above the lease", heldThroughout && maxTtl <= WATCHDOG_MS);
        context.check("another client still cannot take it", !other.getLock(name).tryLock());
        context.check("no lease-lost notification", lost.get() == 0);
        lock.unlock();
        return true;
    }

    private static void sleepUntil(long startNanos, long offsetMs) throws InterruptedException {
        long left = startNanos + TimeUnit.MILLISECONDS.toNanos(offsetMs) - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
