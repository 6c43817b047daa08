package io.dlock.redisprocess;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The redis-server processes this JVM started and that have not exited yet, and the JVM shutdown hook that kills them.
 * The hook is installed when the first process starts (not when a class is loaded); it only touches processes of this
 * registry, so never a process another JVM started.
 */
final class LiveServers {
    private static final Set<ServerProcess> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOK_INSTALLED = new AtomicBoolean();

    private LiveServers() {
    }

    /** Registers a process that just started; installs the shutdown hook on first use. */
    static void add(ServerProcess process) {
        if (HOOK_INSTALLED.compareAndSet(false, true)) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(LiveServers::killAll, "dlock-redis-process-shutdown"));
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: nothing will run the hook, the caller's own cleanup must do
            }
        }
        LIVE.add(process);
    }

    /** Forgets a process that has exited. */
    static void remove(ServerProcess process) {
        LIVE.remove(process);
    }

    /** The shutdown hook: SIGCONT (if paused) and SIGKILL every registered process. Never blocks for long. */
    private static void killAll() {
        for (ServerProcess process : List.copyOf(LIVE)) {
            process.killForShutdown();
        }
    }
}
