package io.dlock.chaos;

import io.dlock.LockClient;
import io.dlock.MultiLock;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;
import static io.dlock.chaos.Event.Type.UNLOCK_NOT_HELD;

/**
 * One thread of a {@link Worker} JVM, an owner of its own, taking {@code getMultiLock(a, b)} over
 * {@link Workload#CANCEL_MEMBERS} (two slots: the members are taken one after another) and abandoning most of its
 * acquisitions at random: two in three are {@code lockAsync()} cancelled with {@code cancel(false)} 0–30 ms later
 * (while they wait, as a grant arrives, or after it), one in three a blocking {@code tryLock} of 1–50 ms. A grant that
 * completes the acquisition before its cancel is a hold (a critical section of 1–10 ms, then {@code unlock()}); a
 * cancel that wins must leave nothing held, which the client's records show at quiescence
 * ({@link QuiescenceChecks}). Events as {@link LockLoop}'s; {@code ACQUIRED} names the members ({@code names=a,b}).
 */
final class CancelLoop implements Runnable {
    private final String source;
    private final LockClient client;
    private final EventLog log;
    private final Path stopFile;
    private final Random random;
    private long holds;

    CancelLoop(WorkerArgs args, int thread, LockClient client) {
        Workload kind = Workload.MULTI_CANCEL;
        this.source = kind.source(args.id(), thread);
        this.client = client;
        this.log = EventLog.create(args.outDir().resolve(args.id() + "-" + kind.label() + "-t" + thread
                + ".events"), source);
        this.stopFile = args.stopFile();
        this.random = new Random((args.seed() * 7 + kind.ordinal()) * 31 + thread);
    }

    String source() {
        return source;
    }

    @Override
    public void run() {
        LoopFrame.run(log, client.getId() + ":" + Thread.currentThread().getId(), stopFile, this::iteration, () -> { });
    }

    private void iteration() throws InterruptedException {
        List<String> names = new ArrayList<>(Workload.CANCEL_MEMBERS);
        Collections.shuffle(names, random);
        MultiLock multi = client.getMultiLock(client.getLock(names.get(0)), client.getLock(names.get(1)));
        String members = " names=" + String.join(",", Workload.CANCEL_MEMBERS);
        boolean cancels = random.nextInt(3) != 0;
        long ms = cancels ? random.nextInt(31) : 1 + random.nextInt(50);
        log.record(ACQUIRE_START, (cancels ? "cancel atMs=" : "try waitMs=") + ms + members);
        boolean acquired;
        try {
            acquired = cancels ? lockOrCancel(multi, ms) : multi.tryLock(ms, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            log.record(ACQUIRE_ERROR, Worker.describe(e));
            Thread.sleep(50 + random.nextInt(100));
            return;
        }
        if (!acquired) {
            log.record(ACQUIRE_TIMEOUT, cancels ? "cancelled" : "");
            return;
        }
        long token = ++holds;
        log.record(ACQUIRED, token, (cancels ? "cancel" : "try") + members);
        Thread.sleep(1 + random.nextInt(10));
        log.record(EXIT, token, "");
        try {
            multi.unlock();
            log.record(UNLOCKED, token, "");
        } catch (IllegalMonitorStateException e) {
            log.record(UNLOCK_NOT_HELD, token, Worker.describe(e));
        } catch (RuntimeException e) {
            log.record(UNLOCK_ERROR, token, Worker.describe(e));
        }
    }

    /**
     * {@code lockAsync()}, cancelled after {@code ms} unless it completed first.
     *
     * @return whether it acquired (it completed before the cancel); false when the cancel won
     * @throws RuntimeException the acquisition's failure
     */
    private static boolean lockOrCancel(MultiLock multi, long ms) throws InterruptedException {
        CompletableFuture<Void> acquisition = multi.lockAsync();
        try {
            acquisition.get(ms, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            if (acquisition.cancel(false)) {
                return false;
            }
        } catch (ExecutionException e) {
            throw failure(e);
        }
        try {
            acquisition.join(); // completed between the wait and the cancel
            return true;
        } catch (CancellationException e) {
            return false;
        } catch (java.util.concurrent.CompletionException e) {
            throw failure(e);
        }
    }

    private static RuntimeException failure(Exception e) {
        return e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
    }
}
