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
 * Read {@link #current} when sending a read and again once its answer is in: a state read under run {@code r1} and
 * found gone later under run {@code r2} may have been lost, not changed, when {@link #changed(String, String) r1 and r2
 * differ}. The run id {@link #current} gives is that of a reply received on a connection the client still uses: it
 * is cached per node ({@code host:port} of the master serving the key's slot on a Cluster; one entry for a standalone
 * server or the master Sentinel names) and forgotten whenever a connection of the client drops or a new one is made
 * (the transport's listener, called by Lettuce on the connection's event loop before a reconnect can start and before
 * a new connection carries a command). So:
 * <ul>
 *   <li>a command sent after {@link #current} completed runs on that run of the server or a later one (a later process
 *       on the same address, or another node after a failover), never an earlier one;</li>
 *   <li>a command whose reply was received before {@link #current} was asked ran on that run or an earlier one: a
 *       restart or a switch of node in between has cleared the cache, and the fresh {@code INFO} then names the run
 *       now serving the key.</li>
 * </ul>
 * Hence when a restart happened between two reads, the run ids asked before the first and after the second differ,
 * and while no connection changed, asking costs no round trip. The converse does not hold: a change of run id between
 * two reads does not prove that the key was lost (a replica promoted by a failover usually has it), which is why a
 * caller judges the run id only when the key is gone; and a state that truly changed (a latch really counted down)
 * just before a restart is then reported as lost too, since the two cannot be told apart.
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
     * @return the run id of the node serving {@code key} now (see the class comment): cached, or from an {@code INFO}
     *         sent now (and cached); {@link #UNKNOWN} when {@code INFO} is refused; fails as {@code INFO} fails when
     *         Redis is unavailable
     */
    public CompletableFuture<String> current(String key) {
        String run = known.get(nodeOf.apply(key));
        return run != null ? CompletableFuture.completedFuture(run) : ask(key);
    }

    /**
     * @return the run id {@link #current} would give at once for {@code key}, or null when it would have to ask (no
     *         reply since the last connection change); never sends anything
     */
    public String known(String key) {
        try {
            return known.get(nodeOf.apply(key));
        } catch (RuntimeException e) {
            return null; // the node cannot be named now (a Cluster without a master for the slot): nothing known
        }
    }

    private CompletableFuture<String> ask(String key) {
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

    /**
     * Forgets every cached run id: a connection dropped (the server behind it may have restarted) or a new one was
     * made (it may lead to another node).
     */
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
