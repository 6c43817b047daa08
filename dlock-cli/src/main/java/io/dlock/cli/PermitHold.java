package io.dlock.cli;

import io.dlock.LeaseLostEvent;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.Permit;
import io.dlock.SemaphoreInfo;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * One permit of an N-permit leased semaphore ({@code dlock run --permits N}), held through the async API so that any
 * thread can act on it. The permit has the watchdog lease (or {@code --lease}) of a lock hold and is renewed the same
 * way; Redis records only its id ({@code dlock status} lists it), which the command finds in {@code $DLOCK_PERMIT_ID}.
 *
 * <p>The semaphore is created with N permits when it does not exist ({@link #prepare}); one that exists with another
 * size is refused, so that a run never counts on "at most N" where Redis says otherwise.
 */
final class PermitHold implements RunHold {
    /** The variable that tells the command its permit's id. */
    static final String PERMIT_ID_ENV = "DLOCK_PERMIT_ID";

    private final LockClient client;
    private final LeasedSemaphore semaphore;
    private final String name;
    /** The library's future of the acquisition: of a {@code Permit}, or of an {@code Optional<Permit>}. */
    private volatile CompletableFuture<?> pending;
    private volatile Permit permit;
    /** The thread that asked for the permit: the owner id of the library's lease-lost events about it. */
    private volatile long askingThread = -1;

    private PermitHold(LockClient client, String name) {
        this.client = client;
        this.name = name;
        this.semaphore = client.getLeasedSemaphore(name);
    }

    /**
     * Creates the semaphore with {@code permits} permits if it does not exist, and checks that it has that many.
     *
     * @throws CliException 78 when the semaphore exists with another number of permits (available plus leased), or
     *                      as {@link ExitCodes#of} when Redis fails or the name is not a semaphore
     */
    static PermitHold prepare(LockClient client, String name, int permits) {
        PermitHold hold;
        SemaphoreInfo info;
        try {
            hold = new PermitHold(client, name);
            hold.semaphore.trySetPermits(permits);
            info = client.inspectSemaphore(name);
        } catch (LockException e) {
            throw new CliException(ExitCodes.of(e), e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
        if (info.totalPermits() != permits) {
            throw new CliException(ExitCodes.CONFIG, "semaphore '" + name + "' has " + info.totalPermits()
                    + " permits (" + info.availablePermits() + " available, " + info.permits().size()
                    + " leased), not " + permits + ": another --permits, or another program, set it up with that "
                    + "many; run with --permits " + info.totalPermits() + ", or change its size (see dlock-cli/"
                    + "README.md, 'Permits')");
        }
        return hold;
    }

    @Override
    public HoldWords words() {
        return HoldWords.permit(name);
    }

    @Override
    public String acquiredAs() {
        Permit p = permit;
        return "as permit " + (p == null ? "?" : p.id());
    }

    @Override
    public CompletableFuture<Boolean> acquire(Duration wait, Duration lease) {
        askingThread = Thread.currentThread().getId();
        CompletableFuture<Optional<Permit>> source;
        CompletableFuture<?> library;
        if (wait == null) {
            CompletableFuture<Permit> untimed = lease == null ? semaphore.acquireAsync()
                    : semaphore.acquireAsync(lease);
            library = untimed;
            source = untimed.thenApply(Optional::of);
        } else {
            source = semaphore.tryAcquireAsync(wait, lease);
            library = source;
        }
        pending = library;
        CompletableFuture<Boolean> acquired = source.thenApply(p -> {
            p.ifPresent(granted -> permit = granted);
            return p.isPresent();
        });
        acquired.whenComplete((ok, error) -> {
            if (error instanceof CancellationException) {
                library.cancel(false); // abandons the wait; the library gives back a permit granted meanwhile
            }
        });
        return acquired;
    }

    @Override
    public long validForNanos() {
        Permit p = permit;
        return p == null ? 0 : p.leaseValidFor().toNanos();
    }

    @Override
    public boolean isAbout(LeaseLostEvent event) {
        return event.lockName().equals(name) && event.ownerId() == askingThread;
    }

    @Override
    public LeaseLostEvent expired() {
        return new LeaseLostEvent(name, askingThread, LeaseLostEvent.Reason.EXPIRED, Instant.now());
    }

    @Override
    public String holderPhrase() {
        try {
            SemaphoreInfo info = client.inspectSemaphore(name);
            if (info.availablePermits() > 0) {
                return "a permit is free again now";
            }
            String leased = info.permits().stream()
                    .map(p -> p.id() + " (" + (p.leaseMillis() < 0 ? "no expiry"
                            : "ttl " + DurationText.formatMillis(p.leaseMillis())) + ")")
                    .collect(Collectors.joining(", "));
            return info.permits().size() + " of " + info.totalPermits() + " leased"
                    + (leased.isEmpty() ? "" : ": " + leased);
        } catch (RuntimeException e) {
            return "holders unknown (" + e.getMessage() + ")";
        }
    }

    @Override
    public boolean heldAfterAbandonedWait() {
        CompletableFuture<?> library = pending;
        if (library == null) {
            return false;
        }
        library.cancel(false); // when it succeeds, the library gives back whatever it grants from now on
        if (!library.isDone() || library.isCompletedExceptionally()) {
            return false;
        }
        Object granted = library.join(); // granted before the cancel: ours to give back
        Permit p = granted instanceof Optional<?> optional ? (Permit) optional.orElse(null) : (Permit) granted;
        if (p != null) {
            permit = p;
        }
        return p != null;
    }

    /** Releases the permit through {@link HoldRelease}: a permit released already needs nothing more. */
    @Override
    public void release(LeaseLostEvent lost, RunMessages messages) {
        Permit p = permit;
        if (p == null) {
            return;
        }
        HoldRelease.await(p.releaseAsync(), cause -> cause instanceof IllegalStateException
                ? HoldRelease.Failure.ALREADY_RELEASED : HoldRelease.Failure.FAILED, lost, messages);
    }

    @Override
    public Map<String, String> environment() {
        Permit p = permit;
        return p == null ? Map.of() : Map.of(PERMIT_ID_ENV, p.id());
    }
}
