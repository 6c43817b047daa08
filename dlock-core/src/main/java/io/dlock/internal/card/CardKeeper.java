package io.dlock.internal.card;

import io.dlock.ClientIdentity;
import io.dlock.internal.Errors;
import io.dlock.internal.script.ScriptRunner;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps this client's card in Redis (docs/protocol.md §6.1), and does nothing else: writes it at {@link #start()},
 * again with each round of the watchdog that sends ({@link #refresh()}, run by the {@code LeaseRenewer}: every third
 * of the watchdog timeout while the client holds anything; one small script in the round's round trip, whatever the
 * client holds, and nothing per acquisition), and removes it at {@link #close()}. Each write is the whole card with
 * its TTL, so a card lost to a restart without persistence or a failover is back at the next round.
 *
 * <p>So a card lives while its client holds something, and for {@value ClientCard#TTL_WATCHDOGS} watchdog timeouts
 * after the client connected or last held something: a client that dies leaves a card that expires that long after
 * its last round, and an idle client writes nothing. (A client idle for longer than that has no card at its next
 * acquisition until its next round, at most a third of the watchdog timeout later.)
 *
 * <p>The card is a courtesy for people reading who holds a lock: a write that fails (the Redis user may not write
 * {@code dlock_client:*}, Redis is down, the key holds another type) is logged (a warning the first time) and
 * changes nothing else. Thread-safe; nothing here blocks.
 */
public final class CardKeeper {
    private static final Logger log = LoggerFactory.getLogger(CardKeeper.class);

    private final ScriptRunner scripts;
    private final String[] key;
    private final String[] writeArgs;
    private final AtomicBoolean warned = new AtomicBoolean();

    private final Object lock = new Object();
    private boolean closed;
    /** The write last sent, so that a refresh never queues behind an unanswered one and the removal comes last. */
    private CompletableFuture<?> lastWrite = CompletableFuture.completedFuture(null);

    /**
     * @param identity     who this client is
     * @param sinceEpochMs when it connected (wall clock, epoch ms)
     * @param watchdogMs   the client's watchdog timeout: the card's TTL is {@value ClientCard#TTL_WATCHDOGS} times it
     */
    public CardKeeper(ScriptRunner scripts, ClientIdentity identity, long sinceEpochMs, long watchdogMs) {
        this.scripts = scripts;
        this.key = new String[] {ClientCard.key(identity.clientId())};
        String[] fields = ClientCard.fields(identity, sinceEpochMs);
        this.writeArgs = new String[fields.length + 1];
        writeArgs[0] = Long.toString(ClientCard.ttlMillis(watchdogMs));
        System.arraycopy(fields, 0, writeArgs, 1, fields.length);
    }

    /**
     * Writes the card (at connect).
     *
     * @return a future completed when Redis answered the write, or it failed; never fails
     */
    public CompletableFuture<Void> start() {
        refresh();
        synchronized (lock) {
            return lastWrite.handle((ignored, error) -> null);
        }
    }

    /**
     * Writes the card again with its full TTL, unless the client is closed or the last write is still unanswered (the
     * TTL covers several rounds). Never blocks, never throws.
     */
    public void refresh() {
        synchronized (lock) {
            if (closed || !lastWrite.isDone()) {
                return;
            }
            lastWrite = send(writeArgs).whenComplete(this::written);
        }
    }

    private void written(Long reply, Throwable error) {
        if (error == null && Long.valueOf(1).equals(reply)) {
            return;
        }
        String why = error != null ? Errors.unwrap(error).toString() : "the key " + key[0] + " holds another type";
        if (warned.compareAndSet(false, true)) {
            log.warn("cannot write this client's card {} (who holds a lock will show as unknown for its holds): {}",
                    key[0], why);
        } else {
            log.debug("cannot write this client's card {}: {}", key[0], why);
        }
    }

    /**
     * Stops the refreshes and removes the card, after the last write was answered (so that no write lands after the
     * removal).
     *
     * @return a future completed when Redis answered the removal, or it failed; never fails
     */
    public CompletableFuture<Void> close() {
        CompletableFuture<?> previous;
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.completedFuture(null);
            }
            closed = true;
            previous = lastWrite;
        }
        return previous.handle((ignored, error) -> null)
                .thenCompose(ignored -> send(new String[] {"0"}))
                .handle((reply, error) -> {
                    if (error != null) {
                        log.debug("cannot remove this client's card {}: {}", key[0], Errors.unwrap(error).toString());
                    }
                    return null;
                });
    }

    private CompletableFuture<Long> send(String[] args) {
        return Errors.call(() -> scripts.run(Scripts.CLIENT_CARD, ScriptOutputType.INTEGER, key, args));
    }
}
