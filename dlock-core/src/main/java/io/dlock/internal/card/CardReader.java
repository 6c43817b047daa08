package io.dlock.internal.card;

import io.dlock.ClientIdentity;
import io.dlock.internal.Errors;
import io.lettuce.core.api.async.RedisHashAsyncCommands;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * Reads the cards of some clients (docs/protocol.md §6.1): one {@code HGETALL} per client, all sent at once
 * (pipelined; on a Cluster each goes to the node of its client's slot), so one round trip for any number of holders.
 * A client without a readable card is left out of the answer: no card (a Redisson client, which writes none; a dlock
 * client that is gone or older than cards), a key of another type, a hash that is not a card, or a read that
 * failed. Only ids shaped like a client's (a UUID) are looked up. Thread-safe; nothing here blocks.
 */
public final class CardReader {
    private static final Pattern CLIENT_ID = Pattern.compile("[0-9a-fA-F-]{36}");

    private final RedisHashAsyncCommands<String, String> redis;

    public CardReader(RedisHashAsyncCommands<String, String> redis) {
        this.redis = redis;
    }

    /** @return the identity of each of {@code clientIds} whose card was found; a future that never fails */
    public CompletableFuture<Map<String, ClientIdentity>> identities(Collection<String> clientIds) {
        List<String> ids = new ArrayList<>(new LinkedHashSet<>(clientIds));
        ids.removeIf(id -> id == null || !CLIENT_ID.matcher(id).matches());
        if (ids.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        List<CompletableFuture<Optional<ClientIdentity>>> reads = new ArrayList<>(ids.size());
        for (String id : ids) {
            CompletableFuture<Map<String, String>> card = Errors.call(
                    () -> redis.hgetall(ClientCard.key(id)).toCompletableFuture());
            reads.add(card.handle((fields, error) -> error != null || fields == null ? Optional.empty()
                    : ClientCard.identity(id, fields)));
        }
        return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0])).handle((ignored, error) -> {
            Map<String, ClientIdentity> found = new HashMap<>();
            for (CompletableFuture<Optional<ClientIdentity>> read : reads) {
                read.getNow(Optional.empty()).ifPresent(identity -> found.put(identity.clientId(), identity));
            }
            return found;
        });
    }
}
