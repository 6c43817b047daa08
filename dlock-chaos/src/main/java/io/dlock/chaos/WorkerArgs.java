package io.dlock.chaos;

import java.nio.file.Path;
import java.util.List;

/**
 * What a {@link Worker} JVM is told on its command line, in this order.
 *
 * @param id               the worker's name, {@code w<n>}: prefix of its event sources and files
 * @param redisUri         the locks' Redis
 * @param storePort        the fencing store's loopback port
 * @param watchdogMs       the client's watchdog timeout (the lease of a hold)
 * @param commandTimeoutMs the client's command timeout, also the bound of a raw Redis probe
 * @param outDir           where its event files go
 * @param stopFile         its loops stop once this file exists
 * @param seed             seeds its loops' choices
 * @param stepMaxMs        the longest sleep of one critical-section step
 * @param threads          loops (threads, owners) per lock kind
 * @param localHandoffs    the client's {@code localHandoffs}: hand-offs between its owners in a row (0 = none)
 */
record WorkerArgs(String id, String redisUri, int storePort, long watchdogMs, long commandTimeoutMs, Path outDir,
                  Path stopFile, long seed, long stepMaxMs, int threads, int localHandoffs) {
    static final String USAGE = "Worker <id> <redisUri> <storePort> <watchdogMs> <commandTimeoutMs> <outDir>"
            + " <stopFile> <seed> <stepMaxMs> <threads> <localHandoffs>";
    private static final int COUNT = 11;

    /** @throws IllegalArgumentException when {@code a} does not hold exactly the fields above */
    static WorkerArgs parse(String[] a) {
        if (a.length != COUNT) {
            throw new IllegalArgumentException("usage: " + USAGE);
        }
        return new WorkerArgs(a[0], a[1], Integer.parseInt(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]),
                Path.of(a[5]), Path.of(a[6]), Long.parseLong(a[7]), Long.parseLong(a[8]), Integer.parseInt(a[9]),
                Integer.parseInt(a[10]));
    }

    /** @return the command-line arguments {@link #parse} reads back */
    List<String> toArgs() {
        return List.of(id, redisUri, Integer.toString(storePort), Long.toString(watchdogMs),
                Long.toString(commandTimeoutMs), outDir.toString(), stopFile.toString(), Long.toString(seed),
                Long.toString(stepMaxMs), Integer.toString(threads), Integer.toString(localHandoffs));
    }
}
