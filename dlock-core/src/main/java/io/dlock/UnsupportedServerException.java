package io.dlock;

/**
 * The Redis server cannot run dlock: it is older than the oldest version dlock supports (the message names both). A
 * client is not created; retrying against the same server does not help.
 */
public class UnsupportedServerException extends LockException {
    private static final long serialVersionUID = 1L;

    public UnsupportedServerException(String message) {
        super(message);
    }
}
