package io.dlock.chaos;

import java.util.Locale;

/** The kinds of fault the {@link Nemesis} injects. */
public enum Fault {
    /** SIGKILL of the worker JVM that holds the lock (a replacement worker is started). */
    KILL_HOLDER,
    /** SIGSTOP of the worker JVM that holds the lock for longer than its lease, then SIGCONT. */
    PAUSE_HOLDER,
    /** The lock's redis-server is killed (SIGKILL), stays down a moment, and restarts empty. */
    REDIS_RESTART,
    /** SIGSTOP of the lock's redis-server for a while, then SIGCONT: it answers nothing meanwhile. */
    REDIS_FREEZE,
    /** {@code CLIENT KILL TYPE normal} and {@code TYPE pubsub}: every worker connection is cut. */
    CLIENT_KILL,
    /** {@code CLIENT PAUSE <ms>}: Redis holds every client's commands for a while (longer than the command timeout). */
    CLIENT_PAUSE,
    /** {@code DEBUG SLEEP <s>}: Redis blocks entirely for a while. Skipped when the server refuses DEBUG. */
    DEBUG_SLEEP,
    /**
     * {@code CLIENT PAUSE <ms> WRITE}, so that releases (scripts) sent meanwhile wait in Redis unanswered; just before
     * the pause ends, {@code CLIENT KILL TYPE normal} cuts every worker's connection, dropping those releases in the
     * middle. The pause is either shorter than the command timeout (the connection drop is what the client sees) or
     * longer (the release has already timed out, and the kill makes sure its script never runs).
     */
    RELEASE_DROP,
    /**
     * Stalls of the whole server, five shorter than the client's command timeout and then one longer (but shorter
     * than a lease): {@code DEBUG SLEEP}, or SIGSTOP and SIGCONT of redis-server when it refuses {@code DEBUG}. Every
     * call in flight meanwhile, of every kind (the semaphores, the latch and the multi-lock included), waits for a
     * late reply, or times out while Redis still runs it afterwards.
     */
    COMMAND_STALL;

    /** @return e.g. {@code kill-holder} */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** @return the fault of a {@link #label()} */
    public static Fault ofLabel(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /** Whether the fault makes the lock's Redis unable to answer for a while. */
    public boolean silencesRedis() {
        return this == REDIS_RESTART || this == REDIS_FREEZE || this == CLIENT_PAUSE || this == DEBUG_SLEEP
                || this == RELEASE_DROP || this == COMMAND_STALL;
    }
}
