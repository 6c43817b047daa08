package io.dlock.internal.client;

import io.dlock.ClientIdentity;
import io.dlock.LockInfo;
import io.dlock.NotALockException;
import io.dlock.internal.Errors;
import io.dlock.internal.LockNames;
import io.dlock.internal.card.CardReader;
import io.dlock.internal.lock.HoldRecord;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisHashAsyncCommands;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a {@link LockInfo} snapshot of any lock kind in one round trip (the read-only {@code inspect} script), and
 * makes sense of fields written by dlock and Redisson alike:
 * <ul>
 *   <li>a hash with a {@code mode} field is a read-write lock; its {@code <id>:<tid>:write} field is the writer, the
 *       other {@code <id>:<tid>} fields are read holds (the writer's own included);</li>
 *   <li>any other hash is a plain, fair or fenced lock: one field per holder;</li>
 *   <li>the fair queue lists waiters in order, each with the deadline of its place (epoch ms in the timeout set).</li>
 * </ul>
 * A key of another type, or a hash whose fields are not a lock's (the script's {@code lock_shaped} test: owner fields
 * {@code <uuid>:<integer>} with integer counts, and for a read-write lock its {@code mode}), is a
 * {@link NotALockException}; the script does not even answer such a hash's fields.
 * <p>
 * When the lock has holders, a second read follows the script: the cards of the holding clients, all at once
 * ({@link CardReader}), which give each holder its {@link LockInfo.Holder#identity() identity}, and beside them (same
 * round trip) the lock's hold record ({@link HoldRecord}), which gives the holder it names its
 * {@link LockInfo.Holder#details() details}. A card or record that is missing or cannot be read (another type, an ACL
 * user without {@code ~dlock_hold:*}) leaves the identity or details empty and never fails the inspection. The record
 * is read outside the script so that an inspecting user needs no permission on it.
 */
public final class LockInspector {
    private static final String WRITE_SUFFIX = ":write";

    private final ScriptRunner scripts;
    private final CardReader cards;
    private final RedisHashAsyncCommands<String, String> hashes;

    public LockInspector(ScriptRunner scripts, CardReader cards, RedisHashAsyncCommands<String, String> hashes) {
        this.scripts = scripts;
        this.cards = cards;
        this.hashes = hashes;
    }

    public CompletableFuture<LockInfo> inspect(String name) {
        String[] keys = {name, LockNames.prefixed("redisson_lock_queue", name),
                LockNames.prefixed("redisson_lock_timeout", name), LockNames.prefixed("redisson_lock_token", name)};
        CompletableFuture<List<Object>> reply = scripts.run(Scripts.INSPECT, ScriptOutputType.MULTI, keys);
        return reply.handle((values, error) -> {
            if (error != null) {
                throw Errors.toApi(error, name, "inspect");
            }
            return parse(name, values);
        }).thenCompose(this::withIdentities);
    }

    /**
     * @return {@code info}, each holder with the identity its client's card gives and, for a lock that is not a
     *         read-write lock, the details of the hold record that names it, if any (both read at once)
     */
    private CompletableFuture<LockInfo> withIdentities(LockInfo info) {
        if (info.holders().isEmpty()) {
            return CompletableFuture.completedFuture(info);
        }
        CompletableFuture<Map<String, String>> record = info.type() != LockInfo.Type.LOCK
                ? CompletableFuture.completedFuture(Map.of())
                : Errors.call(() -> hashes.hgetall(HoldRecord.key(info.name())).toCompletableFuture())
                        .handle((fields, error) -> error != null || fields == null ? Map.of() : fields);
        return cards.identities(info.holders().stream().map(LockInfo.Holder::clientId).toList())
                .thenCombine(record, (found, fields) -> found.isEmpty() && fields.isEmpty() ? info
                        : described(info, found, fields));
    }

    /** @return {@code info} with each holder's identity and hold details, where {@code identities}/{@code record} have them */
    private static LockInfo described(LockInfo info, Map<String, ClientIdentity> identities,
                                      Map<String, String> record) {
        List<LockInfo.Holder> holders = info.holders().stream().map(h -> new LockInfo.Holder(h.clientId(),
                h.threadId(), h.holdCount(), h.write(), Optional.ofNullable(identities.get(h.clientId())),
                HoldRecord.details(record, h.clientId() + ":" + h.threadId()))).toList();
        return new LockInfo(info.name(), info.type(), info.mode(), holders, info.ttlMillis(), info.waiters(),
                info.fencingToken());
    }

    @SuppressWarnings("unchecked")
    static LockInfo parse(String name, List<Object> values) {
        String kind = String.valueOf(values.get(0));
        long ttl = (Long) values.get(1);
        List<Object> fields = (List<Object>) values.get(2);
        List<Object> queue = (List<Object>) values.get(3);
        List<Object> timeouts = (List<Object>) values.get(4);
        Object token = values.get(5);
        boolean lockShaped = values.size() > 6 && Long.valueOf(1).equals(values.get(6));
        if (!kind.equals("none") && !kind.equals("hash")) {
            throw new NotALockException(name, "lock '" + name + "': the key holds a " + kind + ", not a lock", null);
        }
        if (kind.equals("hash") && !lockShaped) {
            throw new NotALockException(name, "lock '" + name + "': the key holds a hash that is not a lock", null);
        }
        Map<String, String> hash = new HashMap<>();
        List<String> order = new ArrayList<>();
        for (int i = 0; i + 1 < fields.size(); i += 2) {
            String field = String.valueOf(fields.get(i));
            hash.put(field, String.valueOf(fields.get(i + 1)));
            order.add(field);
        }
        String mode = hash.remove("mode");
        order.remove("mode");
        LockInfo.Type type = kind.equals("none") ? LockInfo.Type.NONE
                : mode != null ? LockInfo.Type.READ_WRITE : LockInfo.Type.LOCK;
        LockInfo.Mode lockMode = mode == null ? null
                : mode.equals("write") ? LockInfo.Mode.WRITE : LockInfo.Mode.READ;
        List<LockInfo.Holder> holders = new ArrayList<>();
        for (String field : order) {
            boolean write = type == LockInfo.Type.READ_WRITE && field.endsWith(WRITE_SUFFIX);
            String owner = write ? field.substring(0, field.length() - WRITE_SUFFIX.length()) : field;
            holders.add(holder(owner, parseCount(hash.get(field)), write));
        }
        holders.sort((a, b) -> Boolean.compare(b.write(), a.write()));
        Map<String, Long> deadlines = new HashMap<>();
        for (int i = 0; i + 1 < timeouts.size(); i += 2) {
            deadlines.put(String.valueOf(timeouts.get(i)), (long) Double.parseDouble(String.valueOf(timeouts.get(i + 1))));
        }
        List<LockInfo.Waiter> waiters = new ArrayList<>();
        for (Object element : queue) {
            String field = String.valueOf(element);
            Long deadline = deadlines.get(field);
            LockInfo.Holder who = holder(field, 0, false);
            waiters.add(new LockInfo.Waiter(who.clientId(), who.threadId(),
                    deadline == null ? null : Instant.ofEpochMilli(deadline)));
        }
        Long fencingToken = token instanceof String s && !s.isEmpty() ? parseLong(s) : null;
        return new LockInfo(name, type, lockMode, holders, type == LockInfo.Type.NONE ? -2 : ttl, waiters,
                fencingToken);
    }

    private static LockInfo.Holder holder(String owner, int count, boolean write) {
        int colon = owner.lastIndexOf(':');
        if (colon > 0) {
            Long thread = parseLong(owner.substring(colon + 1));
            if (thread != null) {
                return new LockInfo.Holder(owner.substring(0, colon), thread, count, write);
            }
        }
        return new LockInfo.Holder(owner, -1, count, write);
    }

    private static int parseCount(String value) {
        Long n = parseLong(value);
        return n == null ? 0 : (int) Math.min(Integer.MAX_VALUE, n);
    }

    private static Long parseLong(String value) {
        try {
            return value == null ? null : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
