/**
 * The fault-injection suite (see the module README): not a library; nothing here is meant to be used from outside.
 *
 * <ul>
 *   <li>The run: {@code ChaosMain} (command line), {@code ChaosSettings}, {@code ChaosRun} (starts Redis, the
 *       workers and the nemesis, then checks), {@code Processes}.</li>
 *   <li>The workers: {@code Worker} and {@code WorkerArgs} (one JVM, one {@code LockClient}), {@code LockLoop} (one
 *       owner taking one lock kind, semaphore permit or multi-lock again and again), {@code LatchLoop} (one owner in
 *       the latch rounds: set, count down or await) and {@code Guard} (what one hold
 *       takes and gives back), {@code HoldProbe} and {@code RedisLine} (the owner's own look at
 *       Redis, past its client), {@code FencingStorage} and {@code StorageClient} (the fenced store),
 *       {@code HandoffListener} and {@code HandoffCounts} (a worker's local hand-offs per kind).</li>
 *   <li>The faults: {@code Nemesis} (seeded: kills, freezes and pauses of holders and of Redis, cut connections),
 *       {@code Fault}, {@code RedisAdmin}, {@code WorkerProcess}.</li>
 *   <li>The history and its checks: {@code Event}, {@code EventLog}, {@code History}, {@code Hold}, {@code Claims};
 *       {@code Checker} over the families {@code ExclusionChecks}, {@code FencingChecks}, {@code LivenessChecks},
 *       {@code HolderFaultChecks}, {@code RedisHoldChecks}, {@code PermitChecks}, {@code ConservationChecks},
 *       {@code LatchChecks}, {@code FairQueueRemains}; {@code KnownDefect}, {@code HandoffCounts}, {@code FaultReach}
 *       (which faults met which kind); {@code Report} prints the table.</li>
 * </ul>
 * Every process records on one monotonic clock; a violation of any invariant fails the run, and so does an
 * invariant that judged no case.
 */
package io.dlock.chaos;
