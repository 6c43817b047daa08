package io.dlock.spring.boot.actuate;

import io.dlock.HeldLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockClient;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Health of the application's {@link LockClient}: {@code UP} when Redis answers and renewals keep the holds alive;
 * {@code DOWN} when Redis does not answer (a read-only {@link LockClient#inspect(String) inspect} of the probe lock
 * name, bounded by the command timeout), when a hold renewed by the watchdog has fallen more than one renewal behind
 * (less than a third of the watchdog timeout left), or when a lease was lost because renewals failed within the last
 * watchdog timeout. Details: {@code heldLocks}, {@code leasesLost} (since start) and the last lost lease. Never
 * shows credentials.
 *
 * <p>Registers a {@link LeaseLostListener} on the client; {@link #close()} removes it.
 */
public class DlockHealthIndicator extends AbstractHealthIndicator implements AutoCloseable {
    private final LockClient client;
    private final String probeLockName;
    private final Duration watchdogTimeout;
    private final Clock clock;
    private final AtomicLong leasesLost = new AtomicLong();
    private final AtomicReference<LeaseLostEvent> lastLost = new AtomicReference<>();
    private final LeaseLostListener listener = this::leaseLost;

    /**
     * Checks {@code client} with its own settings ({@link LockClient#config()}): the probe lock name it may read, and
     * its watchdog timeout, so that a client customised in code is judged by what it does.
     */
    public DlockHealthIndicator(LockClient client) {
        this(client, Clock.systemUTC());
    }

    DlockHealthIndicator(LockClient client, Clock clock) {
        super("dlock health check failed");
        this.client = Objects.requireNonNull(client, "client");
        this.probeLockName = client.config().tuning().probeLockName();
        this.watchdogTimeout = client.config().watchdogTimeout();
        this.clock = clock;
        client.addLeaseLostListener(listener);
    }

    private void leaseLost(LeaseLostEvent event) {
        leasesLost.incrementAndGet();
        lastLost.set(event);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<HeldLock> held = client.heldLocks();
        builder.withDetail("clientId", client.getId()).withDetail("heldLocks", held.size())
                .withDetail("leasesLost", leasesLost.get());
        LeaseLostEvent last = lastLost.get();
        if (last != null) {
            builder.withDetail("lastLeaseLost", java.util.Map.of("lock", last.lockName(), "reason",
                    last.reason().name(), "at", last.at().toString()));
        }
        try {
            client.inspect(probeLockName);
        } catch (RuntimeException e) {
            builder.down().withDetail("redis", "unreachable").withDetail("error", String.valueOf(e.getMessage()));
            return;
        }
        builder.withDetail("redis", "reachable");
        Duration behind = watchdogTimeout.dividedBy(3);
        List<String> lagging = held.stream()
                .filter(h -> h.renewedByWatchdog() && h.leaseValidFor().compareTo(behind) < 0)
                .map(HeldLock::name).distinct().sorted().toList();
        if (!lagging.isEmpty()) {
            builder.down().withDetail("renewals", "behind").withDetail("renewalsBehindFor", lagging);
            return;
        }
        if (last != null && last.reason() == LeaseLostEvent.Reason.RENEWAL_FAILED
                && last.at().isAfter(Instant.now(clock).minus(watchdogTimeout))) {
            builder.down().withDetail("renewals", "failed");
            return;
        }
        builder.up().withDetail("renewals", "ok");
    }

    @Override
    public void close() {
        client.removeLeaseLostListener(listener);
    }
}
