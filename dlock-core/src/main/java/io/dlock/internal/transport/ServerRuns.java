package io.dlock.internal.transport;

import io.lettuce.core.RedisCommandExecutionException;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Which run of the Redis server behind a key the client talks to: the server's {@code run_id} ({@code INFO server}), a
 * random id that every start of a {@code redis-server} process draws anew. The one place where the client can tell
 * that the server holding a key <em>restarted</em> (a restart without persistence loses every key) or that another
 * node took the key over (a Sentinel or Cluster failover to a replica, which may lack the last writes): any kind that
 * must tell "Redis lost my state" from "somebody changed it" uses it (today the count-down latch: see
 * {@code io.dlock.internal.latch.LatchGroup}).
 *
 * <h2>Use</h2>
 * Read {@link #before} when sending a read, and {@link #after} once its answer is in; a state read under run
 * {@code r1} and found gone later under run {@code r2} may have been lost, not changed, when {@link #changed(String,
 * String) r1 and r2 differ}. Both are exact bounds, whatever the reconnects in between:
 * <ul>
 *   <li>{@link #before(String)} is the run id of a reply already received (cached, or a fresh {@code INFO}): a command
 *       sent after it completes runs on that run of the server or a later one (a later process on the same address,
 *       or another node after a failover), never an earlier one;</li>
 *   <li>{@link #after(String)} sends a fresh {@code INFO}: sent after an answer arrived, it runs on the run that gave
 *       the answer or a later one.</li>
 * </ul>
 * So when a restart happened between a read under {@code before} and a later read, the {@code after} of the later read
 * differs from that {@code before}. The converse does not hold: a change of run id between two reads does not prove
 * that the key was lost (a replica promoted by a failover usually has it), which is why a caller judges the run id only
 * when the key is gone; and a state that truly changed (a latch really counted down) just before a restart is then
 * reported as lost too, since the two cannot be told apart.
 *
 * <h2>Per node</h2>
 * Run ids are kept per node ({@code host:port} of the master serving the key's slot on a Cluster; one entry for a
 * standalone server or the master Sentinel names), cached from the last {@code INFO} and forgotten whenever any
 * connection of the client drops ({@link #forgetAll()}), so that the next {@link #before} asks again instead of giving
 * the run before a restart (a stale cache would only over-report losses, never hide one).
 *
 * <p>A user whose ACL denies {@code INFO}, or a server where it is renamed away, gives no run id: {@link #UNKNOWN}, and
 * nothing is ever judged lost (the client then cannot tell a restart, as before). Thread-safe; never blocks.
 */
public final class ServerRuns {
    /** The run id of a node whose {@code INFO} is refused (ACL, renamed command): restarts cannot be seen there. */
    public static final String UNKNOWN = "";

    /** The node serving a key: any stable text naming it. */
    private final Function<String, String> nodeOf;
    /** {@code INFO server} on the node serving a key, now. */
    private final Function<String, CompletableFuture<String>> infoOf;
    private final Map<String, String> known = new ConcurrentHashMap<>();

    /**
     * @param nodeOf the node that serves a key now (its address; a constant for a single master)
     * @param infoOf sends {@code INFO server} to the node that serves a key; completes on Lettuce's thread
     */
    ServerRuns(Function<String, String> nodeOf, Function<String, CompletableFuture<String>> infoOf) {
        this.nodeOf = nodeOf;
        this.infoOf = infoOf;
    }

    /**
     * @return the run id of the node serving {@code key} as a reply already received showed it (from the cache, or a
     *         fresh {@code INFO} when none is cached), or {@link #UNKNOWN}; fails as {@code INFO} fails when Redis is
     *         unavailable
     */
    public CompletableFuture<String> before(String key) {
        String run = known.get(nodeOf.apply(key));
        return run != null ? CompletableFuture.completedFuture(run) : after(key);
    }

    /**
     * @return the run id of the node serving {@code key} from an {@code INFO} sent now (and cached), or
     *         {@link #UNKNOWN}; fails as {@code INFO} fails when Redis is unavailable
     */
    public CompletableFuture<String> after(String key) {
        String node;
        CompletableFuture<String> reply;
        try {
            node = nodeOf.apply(key);
            reply = infoOf.apply(key);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return reply.handle((info, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                if (isRefused(cause)) {
                    known.put(node, UNKNOWN);
                    return UNKNOWN;
                }
                throw new CompletionException(cause);
            }
            String run = runId(info);
            known.put(node, run);
            return run;
        });
    }

    /** Forgets every cached run id: a connection dropped, the server behind it may have restarted. */
    public void forgetAll() {
        known.clear();
    }

    /**
     * @return whether {@code before} and {@code after} are two known, different runs: what was read under
     *         {@code before} may have been lost by a restart or failover since
     */
    public static boolean changed(String before, String after) {
        return before != null && after != null && !before.isEmpty() && !after.isEmpty() && !before.equals(after);
    }

    /** @return the first 8 characters of {@code run}, for messages (or "unknown") */
    public static String shortId(String run) {
        return run == null || run.isEmpty() ? "unknown" : run.substring(0, Math.min(8, run.length()));
    }

    /** @return the {@code run_id} field of an {@code INFO} reply, or {@link #UNKNOWN} */
    static String runId(String info) {
        if (info != null) {
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("run_id:")) {
                    return line.substring("run_id:".length()).trim();
                }
            }
        }
        return UNKNOWN;
    }

    /** {@code INFO} denied by the ACL, or renamed away: it will not work later either. */
    private static boolean isRefused(Throwable t) {
        String message = String.valueOf(t.getMessage());
        return t instanceof RedisCommandExecutionException
                && (message.startsWith("NOPERM") || message.startsWith("ERR unknown command"));
    }
}
