/**
 * The client's shared parts ({@link io.dlock.internal.parts.ClientParts}): one record, built once by the composition
 * root in {@code io.dlock.internal.client}, from which every wing's services are made (locks, semaphores, latches,
 * multi-locks). Below every wing; depends on nothing of theirs.
 */
package io.dlock.internal.parts;
