/**
 * Holder identity: the card each client keeps in Redis to say who it is (docs/protocol.md §6.1). Not API; may change
 * without notice.
 *
 * <ul>
 *   <li>{@link io.dlock.internal.card.ClientCard}: the card's layout, written once: the key
 *       {@code dlock_client:{CID}}, its fields (host, pid, application, since) and its TTL (three watchdog
 *       timeouts);</li>
 *   <li>{@link io.dlock.internal.card.CardKeeper}: writes this client's card at connect, again with each round of
 *       the watchdog that sends (while the client holds anything), and removes it at close; nothing per
 *       acquisition;</li>
 *   <li>{@link io.dlock.internal.card.CardReader}: reads the cards of a lock's holders, all at once, for
 *       {@code LockClient.inspect}.</li>
 * </ul>
 * A card is dlock's only: Redisson neither writes nor reads it, and no lock script reads it. A missing or unreadable
 * card only leaves an identity unknown. Thread-safe; nothing here blocks.
 */
package io.dlock.internal.card;
