package io.dlock.spring;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;

import java.util.concurrent.locks.LockSupport;

/**
 * One election of a {@link LeaderElections} registry: its settings, and the candidate running it while started
 * (a closed {@link LeaderElection} cannot start again, so each start makes a new one). The candidate's task keeps one
 * {@link TermGate} per term: published while the term lasts, closed when the term is revoked, before the core releases
 * the lock (the core waits for the task, up to the stop timeout). Thread-safe.
 */
final class ElectionSlot {
    private final LockClient client;
    private final String name;
    private final LeaderElectionSettings settings;
    private final boolean autoStart;
    /** The running candidate, or null when stopped. Written under this. */
    private volatile LeaderElection running;
    /** The gate of the term held now, or null. */
    private volatile TermGate gate;

    ElectionSlot(LockClient client, String name, LeaderElectionSettings settings, boolean autoStart) {
        this.client = client;
        this.name = name;
        this.settings = settings;
        this.autoStart = autoStart;
    }

    String name() {
        return name;
    }

    LeaderElectionSettings settings() {
        return settings;
    }

    boolean autoStart() {
        return autoStart;
    }

    /** @return the running candidate, or null */
    LeaderElection election() {
        return running;
    }

    /** @return the gate of the term held now, or null when this candidate leads no term (or is stopped) */
    TermGate gate() {
        return gate;
    }

    /** Becomes a candidate; never blocks; nothing when running. */
    synchronized void start() {
        if (running == null) {
            LeaderElection made = client.getLeaderElection(name, settings);
            made.runWhileLeader(this::lead);
            made.start();
            running = made;
        }
    }

    /** Stops being a candidate: the term ends, its calls are interrupted and drained, the lock released; blocking. */
    synchronized void stop() {
        LeaderElection stopping = running;
        if (stopping != null) {
            try {
                stopping.close();
            } finally {
                running = null;
            }
        }
    }

    /** The task of one term, on the election's task thread: lets calls in until the revocation interrupts it. */
    private void lead(LeaderTerm term) {
        TermGate opened = new TermGate(term);
        gate = opened;
        try {
            // the revocation interrupts this thread; Thread.interrupted() clears it before the gate's wait
            while (!Thread.interrupted()) {
                LockSupport.park(this);
            }
        } finally {
            gate = null;
            opened.close(settings.stopTimeout());
        }
    }

    @Override
    public String toString() {
        return "election '" + name + "' " + (running == null ? "(stopped)" : running);
    }
}
