package io.dlock.spring.boot.actuate;

import io.dlock.HeldLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeaseLostListener;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Health of the application's {@link LockClient}: {@code UP} when Redis answers and renewals keep the holds alive;
 * {@code DOWN} when Redis does not answer (a read-only {@link LockClient#inspectAsync(String) inspect} of the client's
 * probe lock name fails, or gives no answer within the indicator's {@linkplain #DEFAULT_TIMEOUT timeout}), when a hold
 * renewed by the watchdog has fallen more than one renewal behind (less than a third of the client's watchdog timeout
 * left), or when a lease was lost because renewals failed within the last watchdog timeout. Details: {@code redis}
 * ({@code reachable}, {@code unreachable} or {@code not answering}), {@code renewals}, {@code heldLocks},
 * {@code leasesLost} (since start) and the last lost lease. Never shows credentials.
 *
 * <p><b>Bounded.</b> A health check never waits longer than the timeout (1 s by default), also while Redis hangs and
 * the client's command timeout is longer: it then answers {@code DOWN} ({@code redis: not answering}). While a probe
 * is still unanswered, later checks wait on that same probe instead of sending more, so a hung Redis never piles up
 * probes; each is ended by the command timeout at the latest.
 *
 * <p><b>Judged by the client's own settings</b> ({@link LockClient#config()}): the probe lock name it may read and its
 * watchdog timeout, so a client customised in code ({@code LockClientConfigCustomizer}, or a {@code LockClient} bean
 * of the application's) is judged by what it does, never by the {@code dlock.*} properties.
 *
 * <p>Registers a {@link LeaseLostListener} on the client; {@link #close()} removes it. Thread-safe.
 */
public class DlockHealthIndicator extends AbstractHealthIndicator implements AutoCloseable {
    /** How long a health check waits for Redis by default: 1 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

    private final LockClient client;
    private final String probeLockName;
    private final Duration watchdogTimeout;
    private final Duration timeout;
    private final Clock clock;
    private final AtomicLong leasesLost = new AtomicLong();
    private final AtomicReference<LeaseLostEvent> lastLost = new AtomicReference<>();
    private final AtomicReference<CompletableFuture<LockInfo>> probe = new AtomicReference<>();
    private final LeaseLostListener listener = this::leaseLost;

    /** Checks {@code client} with its own settings, waiting at most {@link #DEFAULT_TIMEOUT} for Redis. */
    public DlockHealthIndicator(LockClient client) {
        this(client, DEFAULT_TIMEOUT);
    }

    /**
     * Checks {@code client} with its own settings, waiting at most {@code timeout} for Redis per check.
     *
     * @param timeout at least 1 ms; a check waits no longer even when the client's command timeout is longer
     * @throws NullPointerException     when an argument is null
     * @throws IllegalArgumentException when {@code timeout} is shorter than 1 ms
     */
    public DlockHealthIndicator(LockClient client, Duration timeout) {
        this(client, timeout, Clock.systemUTC());
    }

    DlockHealthIndicator(LockClient client, Duration timeout, Clock clock) {
        super("dlock health check failed");
        this.client = Objects.requireNonNull(client, "client");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("DlockHealthIndicator: timeout must be at least 1 ms, not " + timeout);
        }
        this.timeout = timeout;
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
        ProbeFailure failure = probeRedis();
        if (failure != null) {
            builder.down().withDetail("redis", failure.redis()).withDetail("error", failure.error());
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

    /**
     * Reads the probe lock, waiting at most the timeout; joins a probe still in flight rather than send another.
     *
     * @return null when Redis answered, else why not (the client's messages never show credentials)
     */
    private ProbeFailure probeRedis() {
        try {
            CompletableFuture<LockInfo> current = probe.get();
            if (current == null || current.isDone()) {
                CompletableFuture<LockInfo> next = client.inspectAsync(probeLockName);
                current = probe.compareAndSet(current, next) ? next : probe.get();
            }
            current.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return null;
        } catch (TimeoutException e) {
            return new ProbeFailure("not answering", "no answer from Redis within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return new ProbeFailure("unreachable", String.valueOf(cause.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ProbeFailure("not answering", "interrupted while waiting for Redis");
        } catch (RuntimeException e) {
            return new ProbeFailure("unreachable", String.valueOf(e.getMessage()));
        }
    }

    /** Why the probe failed: the {@code redis} detail ({@code unreachable}, {@code not answering}) and the error. */
    private record ProbeFailure(String redis, String error) {
    }

    @Override
    public void close() {
        client.removeLeaseLostListener(listener);
    }
}
