package io.dlock.chaos;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.reactor.ReactiveLeasedSemaphore;
import io.dlock.reactor.ReactiveLock;
import io.dlock.reactor.ReactiveLockClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.SETUP;
import static io.dlock.chaos.Event.Type.SETUP_ERROR;
import static io.dlock.chaos.Event.Type.SETUP_START;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;

/**
 * One thread of a {@link Worker} JVM that takes holds through dlock-reactor, as a Reactor user would, and cuts them
 * at random: {@link Workload#RX_LOCK} ({@code ReactiveLock.withLock}) or {@link Workload#RX_LEASED}
 * ({@code ReactiveLeasedSemaphore.withPermit}, after the blocking {@code trySetPermits}, recorded as a set-up).
 *
 * <p>One subscription at a time, each a new owner (the reactive API's rule). Its work records {@code ACQUIRED} when
 * it is called (the hold is granted) and {@code EXIT} when it ends, on whatever path: completion after 1–20 ms
 * (recorded before the completion goes downstream, where the release starts), or a cancel, recorded once the cancel
 * has gone up through the work and its own clean-up (0–3 ms) has run. The subscription is cut, half the time, by
 * {@code timeout(1–30 ms)}, otherwise by {@code dispose()} after 1–30 ms; either may land while it waits or while
 * the work runs. A hold's interval in the history is therefore from the grant to the end of the work's own
 * cancellation: the exclusion and permit invariants judge it like any blocking hold, so a release sent before the
 * work's cancellation ran shows up as an overlap.
 *
 * <p>Outcomes: a completed work's release is {@code UNLOCKED} (the Flux completes after it); a cancelled work's release
 * runs unobserved, so no outcome is recorded for it, but the loop waits (at most a lease) until the client no longer
 * counts the hold (gone from {@link LockClient#heldLocks()}, the permit's {@code leaseValidFor()} zero); a cancel
 * before the grant is {@code ACQUIRE_TIMEOUT} ({@code cancelled}). A permit the client still counts after that wait
 * is reported at quiescence ({@link #stranded()}), as is every hold of the reactive lock ({@link Worker}).
 */
final class ReactiveLoop implements Runnable {
    private static final long STEP_NS = TimeUnit.MILLISECONDS.toNanos(2);

    private final String source;
    private final Workload kind;
    private final LockClient client;
    private final long watchdogMs;
    private final EventLog log;
    private final Path stopFile;
    private final Random random;
    private final ReactiveLock lock;
    private final ReactiveLeasedSemaphore semaphore;
    private final LeasedSemaphore setUp;
    /** Permits a cancelled work of this loop was granted that were still valid when the loop stopped waiting. */
    private final List<Permit> unsettled = new ArrayList<>();
    private long holds;

    ReactiveLoop(WorkerArgs args, Workload kind, int thread, LockClient client) {
        this.source = kind.source(args.id(), thread);
        this.kind = kind;
        this.client = client;
        this.watchdogMs = args.watchdogMs();
        this.log = EventLog.create(args.outDir().resolve(args.id() + "-" + kind.label() + "-t" + thread
                + ".events"), source);
        this.stopFile = args.stopFile();
        this.random = new Random((args.seed() * 7 + kind.ordinal()) * 31 + thread);
        ReactiveLockClient reactive = ReactiveLockClient.of(client);
        this.lock = kind == Workload.RX_LOCK ? reactive.getLock(kind.lockName()) : null;
        this.semaphore = kind == Workload.RX_LEASED ? reactive.getLeasedSemaphore(kind.lockName()) : null;
        this.setUp = kind == Workload.RX_LEASED ? client.getLeasedSemaphore(kind.lockName()) : null;
    }

    String source() {
        return source;
    }

    @Override
    public void run() {
        LoopFrame.run(log, client.getId() + ":reactive", stopFile, this::iteration, () -> { });
    }

    /**
     * @return the holds of this loop's cancelled works that the client still counts as held (call after the loop
     *         stopped): for the reactive lock every hold of the client on it, for the semaphore the permits still
     *         valid
     */
    List<String> stranded() {
        List<String> held = new ArrayList<>();
        if (semaphore != null) {
            for (Permit permit : unsettled) {
                if (!permit.leaseValidFor().isZero()) {
                    held.add(kind.lockName() + " permit " + permit.id());
                }
            }
        }
        return held;
    }

    private void iteration() throws InterruptedException {
        if (setUp != null && !setUp()) {
            Thread.sleep(100 + random.nextInt(200));
            return;
        }
        long token = ++holds;
        boolean disposes = random.nextBoolean();
        long cutMs = 1 + random.nextInt(30);
        Work work = new Work(token, 1 + random.nextInt(20), random.nextInt(4));
        log.record(ACQUIRE_START, (disposes ? "dispose" : "timeout") + " cutMs=" + cutMs);
        Flux<Long> flux = lock != null ? lock.withLock(hold -> work.run(hold.owner().id(), null))
                : semaphore.withPermit(permit -> work.run(0, permit));
        if (!disposes) {
            flux = flux.timeout(Duration.ofMillis(cutMs));
        }
        CompletableFuture<Void> terminated = new CompletableFuture<>();
        Disposable subscription = flux.subscribe(v -> { }, terminated::completeExceptionally,
                () -> terminated.complete(null));
        Throwable failure = null;
        boolean cancelled = false;
        try {
            terminated.get(disposes ? cutMs : Worker.WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            subscription.dispose();
            cancelled = true;
        } catch (ExecutionException e) {
            failure = e.getCause();
            cancelled = failure instanceof TimeoutException;
        }
        if (!work.settle()) {
            log.record(failure == null || cancelled ? ACQUIRE_TIMEOUT : ACQUIRE_ERROR,
                    failure == null || cancelled ? "cancelled" : Worker.describe(failure));
            return;
        }
        try {
            work.ended.get(Worker.WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return; // the work never ended: the liveness check judges the loop's silence
        }
        if (!cancelled) {
            log.record(failure == null ? UNLOCKED : UNLOCK_ERROR, token, failure == null ? ""
                    : Worker.describe(failure));
            return;
        }
        // a cancelled hold's release is not observed (no outcome is recorded); the client's records must let it go
        if (!until(work::givenBack, watchdogMs) && work.permit != null) {
            unsettled.add(work.permit);
        }
    }

    /** The blocking {@code trySetPermits}, recorded as a call of its own, as {@link LockLoop}'s set-up. */
    private boolean setUp() {
        log.record(SETUP_START, "set-permits count=" + kind.permits());
        try {
            log.record(SETUP, Boolean.toString(setUp.trySetPermits(kind.permits())));
            return true;
        } catch (RuntimeException e) {
            log.record(SETUP_ERROR, Worker.describe(e));
            return false;
        }
    }

    /** Waits (polling the client's own records, no round trip) until {@code state} holds, at most {@code ms}. */
    private static boolean until(BooleanSupplier state, long ms) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (!state.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.sleep(STEP_NS);
        }
        return true;
    }

    /** One subscription's work: what it was granted, and when it started and ended. */
    private final class Work {
        private static final int WAITING = 0;
        private static final int STARTED = 1;
        private static final int CLOSED = 2;

        private final long token;
        private final long workMs;
        private final long cancelCleanupMs;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private final AtomicBoolean exited = new AtomicBoolean();
        /** Completes once the work ended ({@code EXIT} recorded). */
        private final CompletableFuture<Void> ended = new CompletableFuture<>();
        private volatile long ownerId;
        private volatile Permit permit;

        Work(long token, long workMs, long cancelCleanupMs) {
            this.token = token;
            this.workMs = workMs;
            this.cancelCleanupMs = cancelCleanupMs;
        }

        Mono<Long> run(long ownerId, Permit permit) {
            this.ownerId = ownerId;
            this.permit = permit;
            // a work called after the loop settled its subscription as never granted is still a hold: recorded
            state.compareAndSet(WAITING, STARTED);
            log.record(ACQUIRED, token, "reactive" + (permit != null ? " permit=" + permit.id() : ""));
            // the work ends before its completion goes downstream (where withLock starts the release), or once a cancel
            // has gone all the way up through it (its own clean-up included)
            return Mono.delay(Duration.ofMillis(workMs))
                    .doOnCancel(this::cleanUpAfterCancel)
                    .doOnTerminate(() -> exit("terminated"))
                    .doFinally(signal -> {
                        if (signal == SignalType.CANCEL) {
                            exit("cancelled");
                        }
                    });
        }

        private void exit(String how) {
            if (exited.compareAndSet(false, true)) {
                log.record(EXIT, token, how);
                ended.complete(null);
            }
        }

        /** The work's own clean-up on a cancel (a rollback, a call to abort): it takes a few milliseconds. */
        private void cleanUpAfterCancel() {
            try {
                Thread.sleep(cancelCleanupMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** @return whether the work was called (else it never will be recorded as this iteration's) */
        boolean settle() {
            return !state.compareAndSet(WAITING, CLOSED);
        }

        /** @return whether the client no longer counts the hold the work was granted */
        boolean givenBack() {
            if (permit != null) {
                return permit.leaseValidFor().isZero();
            }
            return client.heldLocks().stream().noneMatch(h -> h.ownerId() == ownerId
                    && h.name().equals(kind.lockName()));
        }
    }
}
