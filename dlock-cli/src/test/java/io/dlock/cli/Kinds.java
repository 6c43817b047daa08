package io.dlock.cli;

import io.dlock.LockClient;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether this build of dlock-core implements the fair and read-write locks (being built concurrently); tests of
 * those kinds are skipped with "not available yet" until they land.
 */
final class Kinds {
    private Kinds() {
    }

    static boolean fairAvailable(LockClient client) {
        try {
            client.getFairLock("probe");
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    static boolean readWriteAvailable(LockClient client) {
        try {
            client.getReadWriteLock("probe");
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    static void skip(String kind) {
        Assumptions.abort(kind + " not available yet in this build of dlock-core");
    }
}
