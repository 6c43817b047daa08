package io.dlock.internal.client;

/**
 * What a client is doing right now, for tests and inspection.
 *
 * @param renewedHolds  holds under watchdog renewal
 * @param trackedHolds  holds tracked locally (watchdog or fixed lease)
 * @param subscriptions pub/sub channels subscribed for waiters
 * @param waiters       acquisitions currently waiting or attempting
 * @param localCohorts  lock names for which the client tracks its own holder and the owners queued behind it
 */
public record Diagnostics(int renewedHolds, int trackedHolds, int subscriptions, int waiters, int localCohorts) {
}
