/**
 * Actuator support for dlock: {@link io.dlock.spring.boot.actuate.DlockHealthIndicator} (health of the application's
 * {@link io.dlock.LockClient}: Redis answers, renewals keep up, no lease lost to failed renewals) and
 * {@link io.dlock.spring.boot.actuate.DlockEndpoint} (the {@code dlock} endpoint: the locks the application holds,
 * and a snapshot of any one lock, answered over HTTP with a status for each outcome by
 * {@link io.dlock.spring.boot.actuate.DlockEndpointWebExtension}).
 *
 * <p>Both are public API of the starter. The auto-configuration creates them when Spring Boot Actuator is present;
 * an application may also create them itself, for a {@code LockClient} of its own. Neither shows credentials.
 */
package io.dlock.spring.boot.actuate;
