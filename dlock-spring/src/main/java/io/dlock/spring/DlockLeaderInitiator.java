package io.dlock.spring;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * A Spring Integration leader initiator on dlock's {@link LeaderElection}, in place of {@code
 * LockRegistryLeaderInitiator}: it runs an election named after the {@link Candidate}'s role, calls the candidate's
 * {@code onGranted} and {@code onRevoked}, and publishes Spring Integration's {@code OnGrantedEvent} and {@code
 * OnRevokedEvent}, so that {@code SmartLifecycleRoleController} (role-based endpoints) and other listeners of those
 * events work unchanged. What it adds: each term has an {@linkplain LeaderTerm#epoch() epoch} to fence side effects
 * with, and the core's timing rule (a leader without confirmed renewals steps down by the renew deadline, before
 * Redis can expire its lock).
 *
 * <pre>{@code
 * @Bean
 * DlockLeaderInitiator leaderInitiator(LockClient client) {   // was: new LockRegistryLeaderInitiator(registry)
 *     return new DlockLeaderInitiator(client, new DefaultCandidate(instanceId, "billing"));
 * }
 * }</pre>
 *
 * <p><b>Order of a term.</b> Per term, on the election's task thread: the candidate's {@code onGranted}, then the
 * {@code OnGrantedEvent}; when the term ends (any {@linkplain LeaderTerm.Cause cause}: {@link #stop()}, {@link
 * Context#yield()}, a lost lease or connection), the candidate's {@code onRevoked}, then the {@code OnRevokedEvent},
 * and only after both returned (or the settings' stop timeout passed) is the lock released: what those calls stop
 * (the role's endpoints) has stopped before another instance is granted. Unlike {@code
 * LockRegistryLeaderInitiator}, the {@code onGranted} call and the event listeners run on that thread too, not on
 * an executor of the initiator's; a listener that blocks holds up the revocation (up to the stop timeout).
 *
 * <p>The {@link Context} handed out answers {@link Context#isLeader()} from its term ({@link LeaderTerm#isValid()},
 * no round trip) and {@link Context#yield()} with {@link LeaderElection#resign()}: blocking until the lock is
 * released, except when called on the term's own thread (from {@code onGranted} or an event listener), where the
 * resignation is started on a thread of its own and {@code yield()} returns at once. A context of an ended term
 * answers false and yields nothing.
 *
 * <p>Lifecycle: auto-started, phase {@code Integer.MAX_VALUE - 1000} (as {@code LockRegistryLeaderInitiator}), so it
 * starts after and stops before the endpoints it controls. {@link #start()} makes a new candidate each time; {@link
 * #stop()} closes it (blocking, at most the stop timeout and a command timeout). Thread-safe.
 */
public class DlockLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {
    private static final Logger log = LoggerFactory.getLogger(DlockLeaderInitiator.class);

    private final LockClient client;
    private final Candidate candidate;
    private final LeaderElectionSettings settings;
    private volatile LeaderEventPublisher leaderEventPublisher;
    private volatile boolean autoStartup = true;
    private volatile int phase = Integer.MAX_VALUE - 1000;
    /** The running candidate, or null when stopped. Guarded by this for start and stop. */
    private volatile LeaderElection election;
    /** The context of the last term granted, or null. */
    private volatile TermContext current;

    /**
     * An initiator with the default timing ({@link LeaderElectionSettings#defaults()}).
     *
     * @param client    the client the election runs on; not closed by this initiator
     * @param candidate the candidate: its role is the election's name
     * @throws NullPointerException when an argument is null
     */
    public DlockLeaderInitiator(LockClient client, Candidate candidate) {
        this(client, candidate, LeaderElectionSettings.defaults());
    }

    /**
     * @param client    the client the election runs on; not closed by this initiator
     * @param candidate the candidate: its role is the election's name
     * @param settings  the election's timing
     * @throws NullPointerException when an argument is null
     */
    public DlockLeaderInitiator(LockClient client, Candidate candidate, LeaderElectionSettings settings) {
        this.client = Objects.requireNonNull(client, "client");
        this.candidate = Objects.requireNonNull(candidate, "candidate");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** Publishes the events through Spring Integration's {@code DefaultLeaderEventPublisher} over this publisher. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        if (leaderEventPublisher == null) {
            leaderEventPublisher = new DefaultLeaderEventPublisher(applicationEventPublisher);
        }
    }

    /** @param publisher publishes the granted and revoked events in place of the application's event publisher */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        this.leaderEventPublisher = Objects.requireNonNull(publisher, "publisher");
    }

    /** @param autoStartup whether the application context starts this initiator (default true) */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /** @param phase the lifecycle phase (default {@code Integer.MAX_VALUE - 1000}) */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    /** @return the candidate this initiator runs */
    public Candidate getCandidate() {
        return candidate;
    }

    /**
     * @return the context of the term held now, or one that answers {@code isLeader()} false when none is; never
     *         blocks
     */
    public Context getContext() {
        TermContext context = current;
        return context == null || context.term.revocationAsync().isDone() ? NOT_LEADER : context;
    }

    /** Becomes a candidate for the candidate's role: never blocks; nothing when running. */
    @Override
    public synchronized void start() {
        if (election != null) {
            return;
        }
        LeaderElection made = client.getLeaderElection(candidate.getRole(), settings);
        made.runWhileLeader(term -> lead(made, term));
        made.start();
        election = made;
    }

    /** Stops being a candidate: the term ends, the candidate is revoked, then the lock is released; blocking. */
    @Override
    public synchronized void stop() {
        LeaderElection running = election;
        if (running != null) {
            running.close();
            election = null;
        }
    }

    @Override
    public boolean isRunning() {
        return election != null;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /** One term, on the election's task thread: granted, then (on the revocation's interrupt) revoked. */
    private void lead(LeaderElection running, LeaderTerm term) throws InterruptedException {
        TermContext context = new TermContext(running, term, Thread.currentThread(), candidate.getRole());
        current = context;
        try {
            candidate.onGranted(context);
            LeaderEventPublisher publisher = leaderEventPublisher;
            if (publisher != null) {
                publisher.publishOnGranted(this, context, candidate.getRole());
            }
            // the revocation interrupts this thread; Thread.interrupted() clears it before onRevoked runs
            while (!Thread.interrupted()) {
                LockSupport.park(this);
            }
        } finally {
            try {
                candidate.onRevoked(context);
            } catch (RuntimeException e) {
                log.error("leader initiator for role '{}': onRevoked of {} failed", candidate.getRole(), candidate, e);
            }
            LeaderEventPublisher publisher = leaderEventPublisher;
            if (publisher != null) {
                publisher.publishOnRevoked(this, context, candidate.getRole());
            }
        }
    }

    @Override
    public String toString() {
        return "DlockLeaderInitiator{" + candidate + ", " + election + "}";
    }

    private static final Context NOT_LEADER = () -> false;

    /**
     * The {@link Context} of one term.
     *
     * @param termThread the term's task thread, where the candidate's calls and the events run
     */
    private record TermContext(LeaderElection running, LeaderTerm term, Thread termThread, String role)
            implements Context {
        @Override
        public boolean isLeader() {
            return term.isValid();
        }

        @Override
        public void yield() {
            if (term.revocationAsync().isDone()) {
                return;
            }
            if (Thread.currentThread() == termThread) {
                // resign() waits for this thread's term to end: not here
                Thread resigner = new Thread(running::resign, "dlock-yield-" + role);
                resigner.setDaemon(true);
                resigner.start();
            } else {
                running.resign();
            }
        }

        @Override
        public String getRole() {
            return role;
        }

        @Override
        public String toString() {
            return "Context{role=" + role + ", " + term + "}";
        }
    }
}
