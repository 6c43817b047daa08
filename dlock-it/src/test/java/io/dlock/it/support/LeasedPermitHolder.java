package io.dlock.it.support;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.Permit;

import java.time.Duration;

/**
 * Child JVM of {@code LeasedPermitCrashIT}: takes one permit of a leased semaphore with a watchdog lease, prints
 * {@code PERMIT <id>} on stdout and then sleeps (the watchdog keeps renewing) until it is killed. Gives up by itself
 * after two minutes, or when the test JVM goes away.
 *
 * <p>Usage: {@code LeasedPermitHolder <redisUri> <semaphoreName> <watchdogMillis>}.
 */
public final class LeasedPermitHolder {
    private LeasedPermitHolder() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LeasedPermitHolder <redisUri> <semaphoreName> <watchdogMillis>");
            System.exit(2);
        }
        CounterWorker.dieWithParent();
        LockClient client = LockClient.create(LockClientConfig.builder()
                .redisUri(args[0])
                .watchdogTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .build());
        Permit permit = client.getLeasedSemaphore(args[1]).acquire();
        System.out.println("PERMIT " + permit.id());
        System.out.flush();
        CounterWorker.log("holding permit " + permit.id() + " of " + args[1] + ", sleeping until killed");
        Thread.sleep(Duration.ofMinutes(2).toMillis());
        CounterWorker.log("not killed within two minutes, giving up");
        System.exit(5);
    }
}
