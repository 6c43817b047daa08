package io.dlock.bench;

import io.dlock.redisprocess.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where S11's latch round spends its time, per library: S11's own {@link LatchRound} (a {@code trySetCount}, then
 * {@value FamilyScenarios#AWAITERS} awaiters and {@value FamilyScenarios#COUNT} count-downs at once on a pool), with
 * the moment each phase ended, measured from the round's start on the main thread:
 * <ol>
 *   <li>{@code set}: {@code trySetCount} returned;</li>
 *   <li>{@code joined}: the last awaiter called {@code await()};</li>
 *   <li>{@code counted}: the last {@code countDown()} returned;</li>
 *   <li>{@code first out} / {@code last out}: the first and the last awaiter returned;</li>
 *   <li>{@code round}: the main thread saw every task done (S11's latency).</li>
 * </ol>
 * Also with no awaiters at all (the round's floor: the harness and the count-downs). Means over the rounds, then the
 * means of the slowest quarter of rounds: whether a slow round is slow in one phase or in all (a busy machine).
 *
 * <p>Usage: {@code java -cp ... io.dlock.bench.LatchRoundPhases [rounds [libraries]]}.
 * <ul>
 *   <li>{@code rounds}: measured per line, default 10,000, after {@value #WARMUP} unmeasured. On the project's 2-core
 *       machines both libraries run the round about a third faster in a JVM's first few thousand rounds than ever
 *       after, with the same CPU per round: the warm-up keeps that out of every line.</li>
 *   <li>{@code libraries}: {@code dlock,redisson} (the default); naming one opens no client of the other.</li>
 * </ul>
 * Two sittings, the libraries' order flipped in the second. Starts its own {@code redis-server} as {@link Bench} does.
 * A diagnostic, not a benchmark: it prints, and checks nothing but that no awaiter returned early.
 */
public final class LatchRoundPhases {
    private static final String[] PHASES = LatchRound.PHASES;
    private static final int WARMUP = 10_000;

    private LatchRoundPhases() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        List<String> names = args.length > 1 ? List.of(args[1].split(",")) : List.of("dlock", "redisson");
        RedisServer.reapOrphans();
        try (RedisServer server = RedisServer.start()) {
            List<Library> libraries = new ArrayList<>();
            try {
                for (String name : names) {
                    libraries.add(Library.open(name, server.uri(), Duration.ofSeconds(30)));
                }
                System.out.printf("redis-server %s; %d rounds per line after %d unmeasured; phase ends in us from "
                        + "the round's start: mean, then [mean of the slowest quarter of rounds]%n",
                        server.version(), rounds, WARMUP);
                for (int sitting = 0; sitting < 2; sitting++) {
                    List<Library> order = new ArrayList<>(libraries);
                    if (sitting == 1) {
                        Collections.reverse(order);
                    }
                    for (Library library : order) {
                        for (int awaiters : new int[] {FamilyScenarios.AWAITERS, 0}) {
                            Family.Latch latch = Family.latch(library, "phases:" + library.name() + ":" + awaiters);
                            run(latch, awaiters, WARMUP);
                            long[][] ends = run(latch, awaiters, rounds);
                            System.out.printf("%-9s %d awaiters  %s%n", library.name(), awaiters, describe(ends));
                        }
                    }
                }
            } finally {
                libraries.forEach(Library::close);
            }
        }
    }

    /** @return per round, the end of each of {@link LatchRound#PHASES} in ns from the round's start */
    private static long[][] run(Family.Latch latch, int awaiters, int rounds) throws Exception {
        long[][] ends = new long[rounds][];
        AtomicInteger early = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(FamilyScenarios.COUNT + FamilyScenarios.AWAITERS);
        try {
            for (int r = 0; r < rounds; r++) {
                ends[r] = LatchRound.run(latch, pool, awaiters, early);
                if (ends[r] == null) {
                    throw new IllegalStateException("trySetCount refused: the latch is not at 0 after a round");
                }
            }
        } finally {
            pool.shutdownNow();
        }
        if (early.get() > 0) {
            throw new IllegalStateException(early.get() + " awaiter(s) returned before every count-down was issued");
        }
        return ends;
    }

    private static String describe(long[][] ends) {
        long[] rounds = Arrays.stream(ends).mapToLong(e -> e[PHASES.length - 1]).sorted().toArray();
        long slowFrom = rounds[rounds.length * 3 / 4];
        StringBuilder line = new StringBuilder();
        for (int phase = 0; phase < PHASES.length; phase++) {
            double all = 0;
            double slow = 0;
            int slowCount = 0;
            for (long[] round : ends) {
                all += round[phase];
                if (round[PHASES.length - 1] >= slowFrom) {
                    slow += round[phase];
                    slowCount++;
                }
            }
            line.append(String.format("%s %.0f [%.0f]  ", PHASES[phase], all / ends.length / 1e3,
                    slow / slowCount / 1e3));
        }
        double meanRound = Arrays.stream(rounds).average().orElse(0);
        return line.append(String.format("= %.0f rounds/s", 1e9 / meanRound)).toString().trim();
    }
}
