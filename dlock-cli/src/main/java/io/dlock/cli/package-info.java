/**
 * The {@code dlock} command line: run a command under a lock (or a leased semaphore's permit), inspect and watch
 * locks, semaphores and latches, force-release a lock or a permit, and a demo.
 * Not an API: {@code Main} and {@code DemoWorker} (the demo's child JVMs) are public as the jar's entry points; the
 * few other public classes ({@code ExitCodes}, {@code DurationText}, {@code Json}, {@code LockInfoFormat}) promise
 * nothing to other modules either.
 *
 * <ul>
 *   <li><b>Commands</b>: {@code Main} (the entry point: parses, runs, exits with the command's code; credentials
 *       scrubbed from all output) and the picocli commands: {@code DlockCommand} (the top-level {@code dlock}, which
 *       only holds the shared options), {@code BaseCommand} (those options, {@code --redis}, {@code --verbose},
 *       and helpers), {@code RunCommand}, {@code StatusCommand}, {@code WatchCommand}, {@code UnlockCommand},
 *       {@code DemoCommand}. What they share: {@code ConnectionOptions} (the mixin of every command: password file,
 *       probe lock name, TLS trust and client certificate; secrets only from files and the environment),
 *       {@code RedisUris} (where Redis is: {@code --redis}, {@code $DLOCK_REDIS} or the default, checked and shown
 *       redacted), {@code Secrets} (the credentials given, and output streams that mask them), {@code ExitCodes}
 *       (every exit code), {@code CliException} (ends a command with a one-line message and an exit code),
 *       {@code Converters} (picocli converters), {@code DurationText} (durations as typed, and back),
 *       {@code Logging} (keeps Lettuce and Netty quiet unless {@code --verbose}), {@code ObjectView} (what
 *       {@code status} and {@code watch} show of one name: a lock, a semaphore, a latch, a count that may be either,
 *       or a key that is none of these), {@code LockInfoFormat} (inspection snapshots as text and JSON) and
 *       {@code Json} (the little JSON written by hand).</li>
 *   <li><b>{@code dlock run}</b>: {@code LockedRun} is the run from acquisition to exit code, {@code RunSettings}
 *       what was asked for; {@code RunHold} what the run holds, either {@code LockHold} (the lock, held for this
 *       process's pid as owner) or {@code PermitHold} (one permit of an N-permit leased semaphore,
 *       {@code --permits N}); {@code RunState} what the main
 *       thread, the shutdown hook and the lease watchers share; {@code CommandLaunch} starts the command (with its
 *       {@code ChildEnvironment}) and its guards; {@code StopPlan} says when the lease forces a stop,
 *       {@code LeaseGuard} watches the hold's deadline, {@code OrphanGuard} (a bash process) stops the command when
 *       dlock cannot; {@code LeaseLossHandler} answers the hold ending or being lost, {@code CommandStopper} stops the
 *       command in time through {@code ProcessTree}; {@code RunMessages} is everything the run says on stderr.</li>
 *   <li><b>{@code dlock demo}</b>: {@code Demo} runs the {@code DemoScenario}s ({@code ExclusionScenario},
 *       {@code ReentrancyScenario}, {@code WatchdogScenario}, {@code CrashScenario}, {@code FairLockScenario},
 *       {@code ReadWriteScenario}, {@code SemaphoreScenario}, {@code LatchScenario}, {@code MultiLockScenario})
 *       against {@code DemoRedis}, each with a {@code ScenarioContext} (its clients and
 *       {@code DemoChild} JVMs, running {@code DemoWorker}); {@code DemoReport} prints the story and keeps the
 *       score.</li>
 * </ul>
 */
package io.dlock.cli;
