package io.dlock.redisprocess;

/** A failed start of a redis-server process; {@link #addressInUse()} when its port was taken. */
final class StartFailedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final boolean addressInUse;

    StartFailedException(String message, boolean addressInUse) {
        super(message);
        this.addressInUse = addressInUse;
    }

    boolean addressInUse() {
        return addressInUse;
    }
}
