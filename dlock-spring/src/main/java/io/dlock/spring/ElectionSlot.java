package io.dlock.spring;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;

import java.util.concurrent.locks.LockSupport;

/**
 * One election of a {@link LeaderElections} registry: its settings, and the candidate running it while started
 * (a closed {@link LeaderElection} cannot start again, so each start makes a new one), and one {@link TermGate} per
 * term, which {@link LeaderOnly} calls enter while the term is valid and the term's task closes when the term is
 * revoked, before the core releases the lock (the core waits for the task, up to the stop timeout). Thread-safe.
 */
final class ElectionSlot {
    private final LockClient client;
    private final String name;
    private final LeaderElectionSettings settings;
    private final boolean autoStart;
    /** The running candidate, or null when stopped. Written under this. */
    private volatile LeaderElection running;
    /** Guards {@link #gate}; not this, whose {@link #stop()} blocks. */
    private final Object gateLock = new Object();
    /** The gate of the newest term seen, or null. Guarded by gateLock. */
    private TermGate gate;

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

    /**
     * Enters the gate of the term this candidate holds now, if it is valid (no round trip).
     *
     * @return the calling thread's entry, to leave in a finally, or null when this candidate leads no valid term (or
     *         its term's gate is closed)
     */
    TermGate.Call enter() {
        LeaderElection election = running;
        LeaderTerm term = election == null ? null : election.currentTerm().filter(LeaderTerm::isValid).orElse(null);
        TermGate opened = term == null ? null : gate(term);
        return opened == null ? null : opened.enter();
    }

    /**
     * The gate of {@code term}, made by whichever asks first: a call (as soon as {@code isLeader()} is true) or the
     * term's task (which closes it). Epochs increase per election, so a term older than the newest gate's has none.
     *
     * @return the gate, or null for a term older than the newest gate's
     */
    private TermGate gate(LeaderTerm term) {
        synchronized (gateLock) {
            if (gate == null || term.epoch() > gate.term().epoch()) {
                gate = new TermGate(term);
            }
            return gate.term().epoch() == term.epoch() ? gate : null;
        }
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

    /**
     * Stops being a candidate: the term ends, its calls are interrupted and drained, the lock released; blocking.
     * Called from inside one of the term's {@link LeaderOnly} calls, which the stop must drain, it starts the stop on a
     * thread of its own and returns at once (waiting would wait for itself, up to the stop timeout): the call is
     * interrupted as the term ends.
     */
    void stop() {
        TermGate current;
        synchronized (gateLock) {
            current = gate;
        }
        if (current != null && current.isInside(Thread.currentThread())) {
            Thread stopper = new Thread(this::stopNow, "dlock-election-stop-" + name);
            stopper.setDaemon(true);
            stopper.start();
            return;
        }
        stopNow();
    }

    private synchronized void stopNow() {
        LeaderElection stopping = running;
        if (stopping != null) {
            try {
                stopping.close();
            } finally {
                running = null;
            }
        }
    }

    /** The task of one term, on the election's task thread: waits for the revocation, then closes the term's gate. */
    private void lead(LeaderTerm term) {
        TermGate opened = gate(term);
        try {
            // the revocation interrupts this thread; Thread.interrupted() clears it before the gate's wait
            while (!Thread.interrupted()) {
                LockSupport.park(this);
            }
        } finally {
            if (opened != null) {
                opened.close(settings.stopTimeout());
            }
        }
    }

    @Override
    public String toString() {
        return "election '" + name + "' " + (running == null ? "(stopped)" : running);
    }
}
