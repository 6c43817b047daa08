package io.dlock.bench;

import org.HdrHistogram.Histogram;

/**
 * What one run of one scenario for one library measured.
 *
 * @param ops           operations completed (a lock+unlock cycle, or one failed tryLock for S8)
 * @param seconds       wall time of the run
 * @param latency       per-operation latency in microseconds (all threads merged)
 * @param extra         a second latency histogram where the scenario reports one (S7: writers), else null
 * @param redisCommands Redis commands executed during the run (INFO commandstats, script-internal ones included)
 * @param cpuNanos      CPU time of this JVM during the run
 * @param check         the scenario's safety check, "ok" or what failed
 */
record Measurement(long ops, double seconds, Histogram latency, Histogram extra, long redisCommands, long cpuNanos,
                   String check) {

    double opsPerSecond() {
        return ops / seconds;
    }

    double commandsPerOp() {
        return ops == 0 ? 0 : (double) redisCommands / ops;
    }

    double cpuMicrosPerOp() {
        return ops == 0 ? 0 : cpuNanos / 1000.0 / ops;
    }

    static Histogram newHistogram() {
        return new Histogram(60_000_000L, 3);
    }
}
