/**
 * The {@code dlock} command line: run a command under a lock, inspect, watch and force-release locks, and a demo.
 * Not an API: {@code Main} and {@code DemoWorker} (the demo's child JVMs) are public as the jar's entry points; the
 * few other public classes ({@code ExitCodes}, {@code DurationText}, {@code Json}, {@code LockInfoFormat}) promise
 * nothing to other modules either.
 *
 * <ul>
 *   <li><b>Commands</b>: {@code Main} (the entry point: credentials scrubbed from all output, exit codes) and the
 *       picocli commands, {@code DlockCommand}, {@code BaseCommand} (the shared options), {@code RunCommand},
 *       {@code StatusCommand}, {@code WatchCommand}, {@code UnlockCommand}, {@code DemoCommand}; what they share:
 *       {@code ExitCodes}, {@code CliException}, {@code Converters}, {@code DurationText}, {@code RedisUris},
 *       {@code Secrets}, {@code Logging}, {@code LockInfoFormat}, {@code Json}.</li>
 *   <li><b>{@code dlock run}</b>: {@code LockedRun} is the run from acquisition to exit code, {@code RunSettings}
 *       what was asked for; {@code RunHold} the lock held for this process's pid; {@code RunState} what the main
 *       thread, the shutdown hook and the lease watchers share; {@code CommandLaunch} starts the command (with its
 *       {@code ChildEnvironment}) and its guards; {@code StopPlan} says when the lease forces a stop,
 *       {@code LeaseGuard} watches the hold's deadline, {@code OrphanGuard} (a bash process) stops the command when
 *       dlock cannot; {@code LeaseLossHandler} answers the hold ending or being lost, {@code CommandStopper} stops the
 *       command in time through {@code ProcessTree}; {@code RunMessages} is everything the run says on stderr.</li>
 *   <li><b>{@code dlock demo}</b>: {@code Demo} runs the {@code DemoScenario}s ({@code ExclusionScenario},
 *       {@code ReentrancyScenario}, {@code WatchdogScenario}, {@code CrashScenario}, {@code FairLockScenario},
 *       {@code ReadWriteScenario}) against {@code DemoRedis}, each with a {@code ScenarioContext} (its clients and
 *       {@code DemoChild} JVMs, running {@code DemoWorker}); {@code DemoReport} prints the story and keeps the
 *       score.</li>
 * </ul>
 */
package io.dlock.cli;
