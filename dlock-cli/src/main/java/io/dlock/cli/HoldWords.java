package io.dlock.cli;

/**
 * What the messages of one {@code dlock run} call its {@link RunHold}.
 *
 * @param held      what is held: {@code lock 'NAME'}, {@code the permit of semaphore 'NAME'}
 * @param busy      the start of the message when it cannot be had: {@code lock 'NAME' is busy}
 * @param waitedFor what a timed-out wait waited for: {@code lock 'NAME'}, {@code a permit of semaphore 'NAME'}
 */
record HoldWords(String held, String busy, String waitedFor) {

    static HoldWords lock(String name) {
        return new HoldWords("lock '" + name + "'", "lock '" + name + "' is busy", "lock '" + name + "'");
    }

    static HoldWords permit(String semaphore) {
        return new HoldWords("the permit of semaphore '" + semaphore + "'",
                "semaphore '" + semaphore + "' has no free permit", "a permit of semaphore '" + semaphore + "'");
    }
}
