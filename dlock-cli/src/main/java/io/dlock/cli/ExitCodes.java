package io.dlock.cli;

import io.dlock.ConnectionFailedException;
import io.dlock.LockException;
import io.dlock.UnsupportedServerException;

/** The exit codes of {@code dlock}; documented in {@code --help} and dlock-cli/README.md. */
public final class ExitCodes {
    /** Success (for {@code run}: the command's own exit code is passed through instead). */
    public static final int OK = 0;
    /**
     * {@code unlock --force}: the lock was not held or the name is not a lock; {@code demo}: a scenario failed;
     * {@code leader}: no leader, or the name is not a lock.
     */
    public static final int FAILED = 1;
    /** Bad command line: unknown option, malformed duration or URI, missing lock name or command. */
    public static final int USAGE = 2;
    /** Redis unreachable or failing (EX_UNAVAILABLE): trying again later may help. */
    public static final int UNAVAILABLE = 69;
    /** Redis refused the password, or the ACL user may not do what dlock needs (EX_NOPERM). */
    public static final int NOPERM = 77;
    /**
     * The settings do not fit the server (EX_CONFIG): certificate not trusted, host name not in the certificate,
     * plain text to a TLS port, TLS handshake refused, server older than 6.2; {@code run --permits N}: the semaphore
     * exists with another number of permits.
     */
    public static final int CONFIG = 78;
    /** Internal error, or a lock kind that this build of dlock-core does not implement yet (EX_SOFTWARE). */
    public static final int SOFTWARE = 70;
    /** {@code run}: the lock could not be had within {@code --wait} (EX_TEMPFAIL); see --conflict-exit-code. */
    public static final int BUSY = 75;
    /** {@code run}: the lease was lost while the command ran, and the command was stopped. */
    public static final int LEASE_LOST = 76;
    /** {@code run}: the command was found but could not be started (as in shells and flock). */
    public static final int CANNOT_EXECUTE = 126;
    /** {@code run}: the command was not found. */
    public static final int NOT_FOUND = 127;

    /** The exit-code section shared by the help texts (picocli's {@code key:value} list form). */
    static final String[] LIST = {
        "0:success",
        "1:unlock --force: the lock was not held, or the name holds something that is not a lock; demo: a check failed;"
                + " leader: no leader, or the name holds something that is not a lock",
        "2:usage error (unknown option, bad duration or URI, missing argument)",
        "69:Redis unreachable or failing (EX_UNAVAILABLE); trying again later may help",
        "77:authentication refused, or an ACL permission missing (EX_NOPERM); see --password-file, --probe-lock-name",
        "78:settings do not fit the server: certificate not trusted, host name not in certificate, server expects TLS,"
                + " TLS handshake failed, server too old; run --permits N: the semaphore has another number of permits"
                + " (EX_CONFIG)",
        "70:internal error",
        "75:run: lock busy / --wait timed out (EX_TEMPFAIL; see --conflict-exit-code)",
        "76:run: lease lost while the command ran, command stopped",
        "126:run: command cannot be executed",
        "127:run: command not found",
        "other:run: the command's own exit code (128+N if killed by signal N)",
    };

    private ExitCodes() {
    }

    /** @return the exit code for a failure of the library: 77, 78 or 69 by its cause (see {@link #LIST}) */
    static int of(LockException e) {
        if (e instanceof ConnectionFailedException failed) {
            switch (failed.reason()) {
                case AUTHENTICATION_REFUSED:
                case PERMISSION_DENIED:
                    return NOPERM;
                case CERTIFICATE_NOT_TRUSTED:
                case HOST_NAME_NOT_IN_CERTIFICATE:
                case SERVER_EXPECTS_TLS:
                case TLS_HANDSHAKE_FAILED:
                    return CONFIG;
                default:
                    return UNAVAILABLE;
            }
        }
        if (e instanceof UnsupportedServerException) {
            return CONFIG;
        }
        // a lock name the ACL rule does not allow (the error of Redis, relayed in the message)
        return String.valueOf(e.getMessage()).contains("NOPERM") ? NOPERM : UNAVAILABLE;
    }
}
