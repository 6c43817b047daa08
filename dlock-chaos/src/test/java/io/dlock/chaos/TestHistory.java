package io.dlock.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;

/** A made-up history for the checker's tests: events at whole milliseconds, checked with a 2 s lease. */
final class TestHistory {
    static final long MS = 1_000_000L;
    static final long LEASE_MS = 2000;
    static final Checker.Bounds BOUNDS = new Checker.Bounds(LEASE_MS, LEASE_MS + 1000, 2500, 10_000);

    final List<Event> events = new ArrayList<>();

    void at(long ms, String source, Event.Type type, long token, String detail) {
        events.add(new Event(ms * MS, source, type, token, detail));
    }

    void at(long ms, String source, Event.Type type, String detail) {
        at(ms, source, type, Event.NO_TOKEN, detail);
    }

    /** @return a validity check's record: made at {@code atMs}, said {@code validMs} */
    static String checks(long atMs, long validMs) {
        return "checkedAt=" + atMs * MS + " validMs=" + validMs;
    }

    /** A fault of the nemesis from {@code startMs} to {@code endMs}; {@code what}: its label and target. */
    void fault(long startMs, long endMs, String what) {
        at(startMs, "nemesis", FAULT_START, what);
        at(endMs, "nemesis", FAULT_END, what.split(" ")[0]);
    }

    Report check() {
        return check(false);
    }

    Report check(boolean strict) {
        ChaosSettings settings = new ChaosSettings(Duration.ofSeconds(1), 1, 3, 1, 8, LEASE_MS, 1000, 80,
                Path.of("unused"), strict);
        return new Checker(BOUNDS).check(events, Map.of(), settings, "test", Duration.ZERO);
    }
}
