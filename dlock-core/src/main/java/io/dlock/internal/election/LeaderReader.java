package io.dlock.internal.election;

import io.dlock.ClientIdentity;
import io.dlock.LeaderInfo;
import io.dlock.NotALockException;
import io.dlock.internal.Errors;
import io.dlock.internal.LockNames;
import io.dlock.internal.lock.LeaderRecord;
import io.dlock.internal.script.LuaScript;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads who leads an election in one read-only round trip ({@code leader_read.lua}, docs/protocol.md §14.4): the
 * leader record, answered only while its holder still holds the election's lock. Thread-safe, never blocks.
 */
public final class LeaderReader {
    private static final long WRONG_TYPE = 0;
    private static final long LEADER = 2;

    private final ScriptRunner scripts;
    /**
     * Read here, on the thread that makes the client: the first use of {@link Scripts} loads every script from the
     * class path, which must never happen on an I/O thread (an observation's first read runs there).
     */
    private final LuaScript script = Scripts.LEADER_READ;

    public LeaderReader(ScriptRunner scripts) {
        this.scripts = scripts;
    }

    /**
     * @return completes on a Redis I/O thread with the leader, or empty when nobody leads; fails with
     *         {@link NotALockException} naming the key when the lock's key or the record is not a hash, or with the
     *         {@link io.dlock.LockException} of a Redis failure
     */
    public CompletableFuture<Optional<LeaderInfo>> read(String name) {
        String[] keys = {name, LeaderRecord.key(name)};
        CompletableFuture<List<Object>> reply = Errors.call(() -> scripts.run(script,
                ScriptOutputType.MULTI, keys));
        return reply.handle((values, error) -> {
            if (error != null) {
                throw Errors.toApi(error, name, "inspectLeader");
            }
            return parse(name, keys, values);
        });
    }

    private static Optional<LeaderInfo> parse(String name, String[] keys, List<Object> values) {
        long outcome = (Long) values.get(0);
        if (outcome == WRONG_TYPE) {
            String key = keys[(int) (long) (Long) values.get(1) - 1];
            throw new NotALockException(name, "leader election '" + name + "': the key '" + key + "' holds a "
                    + values.get(2) + ", not " + (key.equals(name) ? "a lock" : "a leader record"), null);
        }
        if (outcome != LEADER) {
            return Optional.empty();
        }
        String holder = text(values.get(1));
        ClientIdentity identity = new ClientIdentity(text(values.get(2)), text(values.get(3)),
                number(values.get(4), -1), text(values.get(5)));
        long pttl = (Long) values.get(8);
        return Optional.of(new LeaderInfo(name, identity, holder, number(values.get(6), 0),
                Instant.ofEpochMilli(number(values.get(7), 0)), Duration.ofMillis(Math.max(0, pttl))));
    }

    private static String text(Object value) {
        return value == null ? "" : String.valueOf(value);
    }

    private static long number(Object value, long otherwise) {
        try {
            return Long.parseLong(text(value));
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /** @return the channels whose messages announce a change of who leads {@code name}: the lock's and the record's */
    static List<String> channels(String name) {
        return List.of(LockNames.lockChannel(name), LeaderRecord.channel(name));
    }
}
