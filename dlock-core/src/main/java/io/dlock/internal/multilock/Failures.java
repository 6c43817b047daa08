package io.dlock.internal.multilock;

import io.dlock.LockException;

import java.util.ArrayList;
import java.util.List;

/**
 * What went wrong over a multi-lock's members in one operation, reported as one exception that names each failed
 * member and carries the members' own exceptions as suppressed. Not thread-safe: the async callers add under their
 * own ordering (one completion at a time, or synchronized).
 */
final class Failures {
    private final String multiLockName;
    private final String operation;
    private final List<String> members = new ArrayList<>();
    private final List<Throwable> errors = new ArrayList<>();

    Failures(String multiLockName, String operation) {
        this.multiLockName = multiLockName;
        this.operation = operation;
    }

    synchronized void add(String member, Throwable error) {
        members.add(member);
        errors.add(error);
    }

    synchronized boolean isEmpty() {
        return errors.isEmpty();
    }

    /**
     * @return null when nothing failed; an {@link IllegalMonitorStateException} when every failure is one; else a
     *         {@link LockException} whose cause is the first failure that is not one. Either way the message names
     *         every failed member and its error, and every member's exception is attached as suppressed.
     */
    synchronized RuntimeException toException(int memberCount) {
        if (errors.isEmpty()) {
            return null;
        }
        StringBuilder message = new StringBuilder(multiLockName).append(": ").append(operation).append(" failed for ")
                .append(errors.size()).append(" of ").append(memberCount).append(" members");
        Throwable cause = null;
        for (int i = 0; i < errors.size(); i++) {
            Throwable error = errors.get(i);
            message.append(i == 0 ? ": " : "; ").append('\'').append(members.get(i)).append("': ")
                    .append(error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage());
            if (cause == null && !(error instanceof IllegalMonitorStateException)) {
                cause = error;
            }
        }
        RuntimeException combined = cause == null ? new IllegalMonitorStateException(message.toString())
                : new LockException(multiLockName, message.toString(), cause);
        errors.forEach(combined::addSuppressed);
        return combined;
    }
}
