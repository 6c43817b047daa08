package io.dlock.chaos;

import io.dlock.redisprocess.Resp;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.Locale;

/**
 * A lock loop's own look at Redis, past the client under test: whether Redis holds this owner's hold on its kind's
 * lock right now. Over a {@link RedisLine} of the loop's own, so that neither the client's connections nor its
 * state are involved.
 *
 * <p>Where a hold lives (dlock-core's Lua scripts, Redisson's layout):
 * <ul>
 *   <li>plain, fair and fenced locks: the field {@code <client id>:<thread id>} of the hash {@code NAME};</li>
 *   <li>the write side of the read-write lock: the field {@code <client id>:<thread id>:write} of {@code NAME};</li>
 *   <li>a multi-lock: the field {@code <client id>:<thread id>} of each member's hash; its hold is one hold over
 *       all members, present only when every member has the field;</li>
 *   <li>its read side: the field {@code <client id>:<thread id>} of {@code NAME} and the hold's timeout key
 *       {@code {NAME}:<field>:rwlock_timeout:1} (a loop never re-enters, so its read hold is the first). A reader
 *       whose timeout key expired no longer holds, although its field may stay while other readers keep the hash.</li>
 * </ul>
 * Not thread-safe: one per loop.
 */
final class HoldProbe implements AutoCloseable {
    /** What the probe found. */
    enum Verdict {
        /** Redis holds the hold. */
        HELD,
        /** Redis answered and does not hold it. */
        ABSENT,
        /** Redis did not answer (down, frozen, paused, connection cut): nothing is known. */
        UNKNOWN
    }

    /**
     * One look.
     *
     * @param sentAt when the (first) command that answered was sent; the answer came before the probe returned
     * @param why    for ABSENT what is missing ({@code missing=field}, {@code missing=timeoutKey}); for UNKNOWN the
     *               failure ({@code error=…}); else empty
     */
    record Result(Verdict verdict, String field, long sentAt, String why) {
        /** @return the PROBE event's detail: {@code <verdict> field=<field> sentAt=<ns> [<why>]} */
        String detail() {
            return verdict.name().toLowerCase(Locale.ROOT) + " field=" + field + " sentAt=" + sentAt
                    + (why.isEmpty() ? "" : " " + why);
        }
    }

    private final Workload kind;
    private final RedisLine line;

    /** @param timeoutMs the longest one command may take (connect included) */
    HoldProbe(String redisUri, long timeoutMs, Workload kind) {
        URI uri = URI.create(redisUri);
        this.kind = kind;
        this.line = new RedisLine(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), timeoutMs);
    }

    /**
     * Looks once. A connection made by an earlier look that turns out broken (CLIENT KILL cuts idle ones too) is
     * replaced, and the look made again, once; a timeout is not retried.
     *
     * @param ownerField {@code <client id>:<thread id>}
     * @param read       whether the hold is a read hold of the read-write lock (else its write hold, or an
     *                   exclusive kind's)
     * @param keys       the hashes the hold lives in: the lock's name, or every member of a multi-lock (one hold
     *                   over all of them: absent as soon as one member lacks the field)
     */
    Result look(String ownerField, boolean read, java.util.List<String> keys) {
        String field = kind == Workload.READ_WRITE && !read ? ownerField + Workload.WRITER_SUFFIX : ownerField;
        boolean reused = line.isOpen();
        long sentAt = System.nanoTime();
        try {
            return lookOnce(field, read, keys, sentAt);
        } catch (SocketTimeoutException | Resp.ErrorReplyException e) {
            return unknown(field, sentAt, e);
        } catch (IOException e) {
            if (!reused) {
                return unknown(field, sentAt, e);
            }
        }
        sentAt = System.nanoTime();
        try {
            return lookOnce(field, read, keys, sentAt);
        } catch (IOException e) {
            return unknown(field, sentAt, e);
        }
    }

    private Result lookOnce(String field, boolean read, java.util.List<String> keys, long sentAt)
            throws IOException {
        String missing = missing(field, read, keys);
        return missing == null ? new Result(Verdict.HELD, field, sentAt, "")
                : new Result(Verdict.ABSENT, field, sentAt, "missing=" + missing);
    }

    /**
     * @return what of the hold Redis lacks ({@code field}, {@code timeoutKey}; for a multi-lock
     *         {@code field:<member>}, the first member without it), or null when it has it all
     */
    private String missing(String field, boolean read, java.util.List<String> keys) throws IOException {
        for (String key : keys) {
            if (!Long.valueOf(1).equals(line.call("HEXISTS", key, field))) {
                return kind == Workload.MULTI ? "field:" + key : "field";
            }
        }
        if (read && !Long.valueOf(1).equals(line.call("EXISTS", kind.readTimeoutKey(field)))) {
            return "timeoutKey";
        }
        return null;
    }

    private static Result unknown(String field, long sentAt, IOException e) {
        return new Result(Verdict.UNKNOWN, field, sentAt, "error=" + Worker.describe(e));
    }

    @Override
    public void close() {
        line.close();
    }
}
