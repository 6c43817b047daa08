package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;

import java.util.concurrent.TimeUnit;

/**
 * A crashed holder: a child JVM holding the lock with a short watchdog lease is SIGKILLed (no unlock, no more
 * renewals); the lock can be had again once that lease has run out.
 */
final class CrashScenario extends DemoScenario {
    private static final long WATCHDOG_MS = 2000;

    CrashScenario() {
        super("Crash: the holder JVM is killed (SIGKILL); its lock comes back after its lease", "crash");
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws Exception {
        LockClient client = context.newClient(null);
        DemoChild holder = context.startChild("hold", context.uri(), name, Long.toString(WATCHDOG_MS));
        String[] locked = holder.await("LOCKED ").split(" ");
        LockInfo info = client.inspect(name);
        context.say("JVM " + holder.process().pid() + " took the lock (watchdog "
                + DurationText.formatMillis(WATCHDOG_MS) + ") -> " + LockInfoFormat.summary(info));
        context.check("held by the child JVM", info.holders().size() == 1
                && info.holders().get(0).clientId().equals(locked[1]));
        DistributedLock lock = client.getLock(name);
        context.check("busy for us while it lives", !lock.tryLock());
        holder.process().destroyForcibly(); // SIGKILL: no unlock, no more renewals
        long killed = System.nanoTime();
        holder.process().waitFor(10, TimeUnit.SECONDS);
        context.say("kill -9 " + holder.process().pid() + "; waiting for the lock ...");
        boolean acquired = lock.tryLock(10, TimeUnit.SECONDS);
        long afterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        if (acquired) {
            context.say("acquired " + afterMs + " ms after the kill -> "
                    + LockInfoFormat.summary(client.inspect(name)));
            lock.unlock();
        }
        context.check("recovered when the dead holder's lease ran out (" + afterMs + " ms after the kill; lease "
                + WATCHDOG_MS + " ms, + 1 s margin)", acquired && afterMs <= WATCHDOG_MS + 1000);
        return true;
    }
}
