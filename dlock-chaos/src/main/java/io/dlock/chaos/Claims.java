package io.dlock.chaos;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.NOT_VALID;
import static io.dlock.chaos.Event.Type.STEP;
import static io.dlock.chaos.Event.Type.WRITE_START;

/**
 * The validity checks a lock loop records: {@code checkedAt=<ns> validMs=<ms>} in the detail of an ACQUIRED,
 * STEP, WRITE_START, NOT_VALID or EXIT event, what {@code leaseValidFor()} said at {@code checkedAt}.
 *
 * <p>A check that said {@code validMs > 0} is a <em>claim</em>: the client promises that the hold lasts in Redis at
 * least until {@code checkedAt + validMs}, unless Redis loses its data.
 */
final class Claims {
    private Claims() {
    }

    /** What the validity check recorded in {@code e} said, in ms ({@code validMs=}); 0 when not recorded. */
    static long validMs(Event e) {
        String value = field(e, "validMs=");
        return value == null ? 0 : Long.parseLong(value);
    }

    /** The {@code checkedAt=} of a validity check recorded in an ACQUIRED, WRITE_START, STEP, NOT_VALID or EXIT. */
    static Long checkedAt(Event e) {
        if (e.type() != WRITE_START && e.type() != STEP && e.type() != NOT_VALID && e.type() != EXIT
                && e.type() != ACQUIRED) {
            return null;
        }
        String value = field(e, "checkedAt=");
        return value == null ? null : Long.parseLong(value);
    }

    /** @return the later of {@code soFar} and the end of the claim recorded in {@code e}, if it makes one */
    static long claimEnd(Event e, long soFar) {
        Long checkedAt = checkedAt(e);
        long validMs = checkedAt == null ? 0 : validMs(e);
        if (checkedAt == null || validMs <= 0) {
            return soFar;
        }
        return Math.max(soFar, checkedAt + validMs * History.MS);
    }

    /** @return the value of the first {@code name…} word of an event's detail, or null */
    static String field(Event e, String name) {
        for (String part : e.detail().split(" ")) {
            if (part.startsWith(name)) {
                return part.substring(name.length());
            }
        }
        return null;
    }
}
