package io.dlock.spring.boot.actuate;

import io.dlock.HeldLock;
import io.dlock.LeaderElection;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.spring.LeaderElections;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The {@code dlock} actuator endpoint: {@code /actuator/dlock} lists the locks this application's client holds now
 * and the leader elections it runs (from the client's and the elections' own records, no round trip);
 * {@code /actuator/dlock/{name}} shows what Redis says about one lock ({@link LockClient#inspect(String)}, one round
 * trip), whoever holds it. Read-only; shows no credentials.
 */
@Endpoint(id = "dlock")
public class DlockEndpoint {
    private final LockClient client;
    private final LeaderElections elections;

    /** An endpoint that lists no elections. */
    public DlockEndpoint(LockClient client) {
        this(client, null);
    }

    /**
     * @param client    the application's client
     * @param elections the application's elections, listed by {@link #locks()}; null for none
     */
    public DlockEndpoint(LockClient client, LeaderElections elections) {
        this.client = Objects.requireNonNull(client, "client");
        this.elections = elections;
    }

    /** @return this client's id, its holds (sorted by lock name and owner) and its elections (sorted by name) */
    @ReadOperation
    public HeldLocksDescriptor locks() {
        List<HeldLockDescriptor> locks = client.heldLocks().stream()
                .sorted(Comparator.comparing(HeldLock::name).thenComparingLong(HeldLock::ownerId))
                .map(HeldLockDescriptor::of)
                .toList();
        List<ElectionDescriptor> running = elections == null ? List.of() : elections.names().stream()
                .map(name -> ElectionDescriptor.of(name, elections.election(name).orElse(null)))
                .toList();
        return new HeldLocksDescriptor(client.getId(), locks, running);
    }

    /**
     * One round trip to Redis, bounded by the client's command timeout. Over HTTP, {@link DlockEndpointWebExtension}
     * turns each exception into a status and dlock's message.
     *
     * @param name a lock name
     * @return the lock's state in Redis
     * @throws io.dlock.NotALockException when the key holds something that is not a lock (its contents are never
     *                                    shown)
     * @throws io.dlock.LockException     when Redis fails (unreachable, timed out, an ACL refusal)
     * @throws IllegalArgumentException   when dlock refuses the name
     */
    @ReadOperation
    public LockInfoDescriptor lock(@Selector String name) {
        return LockInfoDescriptor.of(client.inspect(name), client.getId());
    }

    /**
     * @param clientId  this application's client id (the prefix of its owner fields in Redis)
     * @param elections the application's leader elections ({@link LeaderElections}), sorted by name
     */
    public record HeldLocksDescriptor(String clientId, List<HeldLockDescriptor> locks,
                                      List<ElectionDescriptor> elections) {
        /** Without elections. */
        public HeldLocksDescriptor(String clientId, List<HeldLockDescriptor> locks) {
            this(clientId, locks, List.of());
        }
    }

    /**
     * One leader election of this application, as its candidate sees it now (its own clock, no round trip).
     *
     * @param state         {@value #LEADER} (it holds a valid term), {@value #CANDIDATE} (it competes, or its term
     *                      is ending) or {@value #STOPPED} (not started, or stopped)
     * @param epoch         the term's epoch ({@link LeaderTerm#epoch()}) while {@code LEADER}, else null
     * @param since         ISO-8601 instant the term began while {@code LEADER}, else null
     * @param validFor      ISO-8601 duration the term is known valid for ({@link LeaderTerm#validFor()}) while
     *                      {@code LEADER}, else null
     * @param validForMillis the same in milliseconds, else null
     */
    public record ElectionDescriptor(String name, String state, Long epoch, String since, String validFor,
                                     Long validForMillis) {
        /** This candidate holds a valid term. */
        public static final String LEADER = "LEADER";
        /** This candidate competes for the next term (or its term is ending). */
        public static final String CANDIDATE = "CANDIDATE";
        /** The election is not running in this application. */
        public static final String STOPPED = "STOPPED";

        static ElectionDescriptor of(String name, LeaderElection election) {
            if (election == null) {
                return new ElectionDescriptor(name, STOPPED, null, null, null, null);
            }
            LeaderTerm term = election.currentTerm().filter(LeaderTerm::isValid).orElse(null);
            if (term == null) {
                return new ElectionDescriptor(name, CANDIDATE, null, null, null, null);
            }
            Duration validFor = term.validFor();
            return new ElectionDescriptor(name, LEADER, term.epoch(), term.since().toString(), validFor.toString(),
                    validFor.toMillis());
        }
    }

    /**
     * @param leaseValidFor       ISO-8601 duration, as {@link io.dlock.DistributedLock#leaseValidFor()}
     * @param leaseValidForMillis the same in milliseconds
     */
    public record HeldLockDescriptor(String name, String kind, long ownerId, int holdCount, String leaseValidFor,
                                     long leaseValidForMillis, boolean renewedByWatchdog) {
        static HeldLockDescriptor of(HeldLock hold) {
            return new HeldLockDescriptor(hold.name(), hold.kind().name(), hold.ownerId(), hold.holdCount(),
                    hold.leaseValidFor().toString(), hold.leaseValidFor().toMillis(), hold.renewedByWatchdog());
        }
    }

    /**
     * @param type         {@code NONE}, {@code LOCK} or {@code READ_WRITE}
     * @param mode         {@code READ}, {@code WRITE} or null
     * @param ttlMillis    as {@link io.dlock.DistributedLock#remainTimeToLive()} ({@code -2} not locked, {@code -1} no
     *                     expiry)
     * @param fencingToken the last token issued for the name, or null
     */
    public record LockInfoDescriptor(String name, String type, String mode, long ttlMillis, List<Holder> holders,
                                     List<Waiter> waiters, Long fencingToken) {
        static LockInfoDescriptor of(LockInfo info, String ownClientId) {
            return new LockInfoDescriptor(info.name(), info.type().name(),
                    info.mode() == null ? null : info.mode().name(), info.ttlMillis(),
                    info.holders().stream().map(h -> new Holder(h.clientId(), h.threadId(), h.holdCount(), h.write(),
                            ownClientId.equals(h.clientId()), h.identity().orElse(null),
                            h.details().map(d -> d.since().toString()).orElse(null),
                            h.details().map(LockInfo.HoldDetails::thread).orElse(null))).toList(),
                    info.waiters().stream().map(w -> new Waiter(w.clientId(), w.threadId(),
                            w.deadline() == null ? null : w.deadline().toString())).toList(),
                    info.fencingToken());
        }
    }

    /**
     * @param thisApplication whether the holder is this application's client
     * @param identity        who the holding client is (host, pid, application), from its card; null when unknown
     *                        (no card: a Redisson holder, or a dlock client whose card expired)
     * @param since           when the hold was taken (ISO-8601), from its hold record; null without one (only clients
     *                        with {@code dlock.hold-details=true} write it, for plain locks)
     * @param thread          the name of the thread that asked for the hold, from its hold record; null without one
     */
    public record Holder(String clientId, long threadId, int holdCount, boolean write, boolean thisApplication,
                         io.dlock.ClientIdentity identity, String since, String thread) {
    }

    /** @param deadline ISO-8601 instant until which the waiter keeps its place */
    public record Waiter(String clientId, long threadId, String deadline) {
    }
}
