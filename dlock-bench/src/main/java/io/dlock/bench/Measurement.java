package io.dlock.bench;

import org.HdrHistogram.Histogram;

/**
 * What one run of one scenario for one library measured.
 *
 * @param ops           operations completed (a lock+unlock cycle, or one failed tryLock for S8)
 * @param seconds       wall time of the run
 * @param latency       per-operation latency in microseconds (all threads merged)
 * @param extra         a second latency histogram where the scenario reports one (S7: writers), else null
 * @param commands      Redis commands executed during the run (INFO commandstats deltas), total and client-sent
 * @param cpuNanos      CPU time of this JVM during the run
 * @param serverCpuNanos CPU time of the Redis server process during the run ({@code INFO cpu} deltas)
 * @param check         the scenario's safety check, "ok" or what failed
 */
record Measurement(long ops, double seconds, Histogram latency, Histogram extra, CommandCounts commands, long cpuNanos,
                   long serverCpuNanos, String check) {

    double opsPerSecond() {
        return ops / seconds;
    }

    /** All commands per operation, script-internal ones included. */
    double commandsPerOp() {
        return perOp(commands.total());
    }

    /** EVAL/EVALSHA (and their _RO forms) per operation. */
    double scriptCallsPerOp() {
        return perOp(commands.scriptCalls());
    }

    /** (Un)subscribe commands of every kind per operation. */
    double pubSubPerOp() {
        return perOp(commands.pubSub());
    }

    /** Commands attributed to the clients exactly, per operation (see {@link ClientSent}). */
    double roundTripsPerOp() {
        return perOp(commands.roundTrips());
    }

    private double perOp(long count) {
        return ops == 0 ? 0 : (double) count / ops;
    }

    /** Calls of {@code command} (a commandstats name) per operation. */
    double perOp(String command) {
        return perOp(commands.byName().getOrDefault(command, 0L));
    }

    double cpuMicrosPerOp() {
        return ops == 0 ? 0 : cpuNanos / 1000.0 / ops;
    }

    /** Redis server CPU time per operation, in microseconds. */
    double serverCpuMicrosPerOp() {
        return ops == 0 ? 0 : serverCpuNanos / 1000.0 / ops;
    }

    static Histogram newHistogram() {
        return new Histogram(60_000_000L, 3);
    }
}
