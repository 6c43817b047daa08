package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.MultiLock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The multi-lock: threads of one client take the locks A and B as one multi-lock while threads of another client
 * take B and C (given in the other order) as another. Each counts itself in and out while inside: the two share B,
 * so nobody is ever inside with anybody else, and nobody deadlocks (members are taken in one global order). Then,
 * with C held by a third client, a multi-lock over B and C gives up without keeping B: all or nothing.
 */
final class MultiLockScenario extends DemoScenario {
    private static final int THREADS_PER_CLIENT = 3;
    private static final int ROUNDS = 20;

    MultiLockScenario() {
        super("Multi-lock: two multi-locks sharing a member never overlap; all or nothing", "multi");
    }

    @Override
    boolean tell(ScenarioContext context, String name) throws Exception {
        String a = name + "-a";
        String b = name + "-b";
        String c = name + "-c";
        LockClient left = context.newClient(null);
        LockClient right = context.newClient(null);
        context.say("client 1: " + THREADS_PER_CLIENT + " threads take multi-lock (A, B); client 2: "
                + THREADS_PER_CLIENT + " threads take multi-lock (C, B); " + ROUNDS + " rounds each");
        context.say("A, B, C = '" + a + "', '" + b + "', '" + c + "'");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS_PER_CLIENT; t++) {
            threads.add(contender(left, a, b, inside, overlaps, rounds, failures));
            threads.add(contender(right, c, b, inside, overlaps, rounds, failures));
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        boolean finished = true;
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
            finished &= !thread.isAlive();
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        int expected = 2 * THREADS_PER_CLIENT * ROUNDS;
        context.say(rounds.get() + " rounds in " + DurationText.formatMillis(tookMs));
        context.check("never two holders inside at once (" + overlaps.get() + " overlaps seen)", overlaps.get() == 0);
        context.check("every round got in, no deadlock (" + rounds.get() + " of " + expected + ", "
                + failures.get() + " failed)", finished && rounds.get() == expected && failures.get() == 0);
        if (!finished) {
            return false;
        }
        context.check("A, B and C all free afterwards", free(left, a) && free(left, b) && free(left, c));

        LockClient third = context.newClient(null);
        DistributedLock heldC = third.getLock(c);
        heldC.lock();
        MultiLock bc = right.getMultiLock(right.getLock(c), right.getLock(b));
        boolean got = bc.tryLock(Duration.ofMillis(300));
        if (got) {
            bc.unlock();
        }
        boolean bFree = free(right, b);
        context.say("client 3 holds C; client 2 tries multi-lock (C, B) for 300 ms -> " + (got ? "taken" : "not taken")
                + ", B " + (bFree ? "free" : "still held"));
        context.check("all or nothing: not taken, and B not kept", !got && bFree);
        heldC.unlock();
        return true;
    }

    /** A thread that takes a multi-lock over {@code first} and {@code second} {@link #ROUNDS} times. */
    private static Thread contender(LockClient client, String first, String second, AtomicInteger inside,
                                    AtomicInteger overlaps, AtomicInteger rounds, AtomicInteger failures) {
        Thread thread = new Thread(() -> {
            MultiLock both = client.getMultiLock(client.getLock(first), client.getLock(second));
            try {
                for (int i = 0; i < ROUNDS; i++) {
                    if (!both.tryLock(Duration.ofSeconds(10))) {
                        failures.incrementAndGet();
                        continue;
                    }
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        Thread.sleep(1);
                        inside.decrementAndGet();
                        rounds.incrementAndGet();
                    } finally {
                        both.unlock();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.incrementAndGet();
            } catch (RuntimeException e) {
                failures.incrementAndGet();
            }
        }, "demo-multi-lock");
        thread.setDaemon(true);
        return thread;
    }

    private static boolean free(LockClient client, String name) {
        return client.inspect(name).type() == LockInfo.Type.NONE;
    }
}
