package io.dlock;

/**
 * An acquisition that fewer replicas confirmed than {@link LockClientConfig.Builder#syncReplicas} asks for, within its
 * timeout: the hold was given back (or, if giving it back failed too, expires with its lease), so the caller does not
 * hold the lock. Waiting acquisitions without a wait limit treat it like Redis being unavailable and try again.
 */
public class ReplicasNotSyncedException extends LockException {
    private static final long serialVersionUID = 1L;

    public ReplicasNotSyncedException(String lockName, String message) {
        super(lockName, message, null);
    }
}
