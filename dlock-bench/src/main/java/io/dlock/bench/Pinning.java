package io.dlock.bench;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts the times a virtual thread blocked while pinned to its carrier during a run: the JDK's
 * {@code jdk.VirtualThreadPinned} flight-recorder event, recorded from the first nanosecond (threshold 0) so that
 * every pinned block shows. On JDK 21-23 a thread that blocks inside a {@code synchronized} block is pinned; JDK 24
 * removed that case (native frames and class initialisers still pin).
 */
final class Pinning implements AutoCloseable {
    static final String EVENT = "jdk.VirtualThreadPinned";

    private final Recording recording = new Recording();

    private Pinning() {
    }

    /** Starts recording; {@link #stop()} reads what was recorded. */
    static Pinning start() {
        Pinning pinning = new Pinning();
        pinning.recording.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
        pinning.recording.start();
        return pinning;
    }

    /** What was recorded: how many pinned blocks, their total time, and the frame most of them blocked under. */
    record Summary(long count, Duration total, String topFrame) {
        @Override
        public String toString() {
            if (count == 0) {
                return "no virtual thread pinned (" + EVENT + ")";
            }
            return String.format("%,d pinned block(s) of virtual threads, %.1f ms in all (%s); most under %s", count,
                    total.toNanos() / 1e6, EVENT, topFrame);
        }
    }

    /** Stops recording and reads the events. */
    Summary stop() throws IOException {
        recording.stop();
        Path file = Files.createTempFile("dlock-bench-pinning", ".jfr");
        try {
            recording.dump(file);
            List<RecordedEvent> events = RecordingFile.readAllEvents(file);
            Duration total = Duration.ZERO;
            Map<String, Integer> byFrame = new HashMap<>();
            for (RecordedEvent event : events) {
                total = total.plus(event.getDuration());
                byFrame.merge(libraryFrame(event) + reason(event), 1, Integer::sum);
            }
            String top = byFrame.entrySet().stream().max(Map.Entry.comparingByValue())
                    .map(e -> e.getKey() + " (" + e.getValue() + ")").orElse("-");
            return new Summary(events.size(), total, top);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Why the thread was pinned, where the JDK says (its field {@code pinnedReason}, JDK 24+), else "". */
    private static String reason(RecordedEvent event) {
        return event.hasField("pinnedReason") ? " [" + event.getString("pinnedReason") + "]" : "";
    }

    /** The first frame outside the JDK: the code that blocked while pinned (or the top frame if all are the JDK's). */
    private static String libraryFrame(RecordedEvent event) {
        if (event.getStackTrace() == null || event.getStackTrace().getFrames().isEmpty()) {
            return "(no stack)";
        }
        List<RecordedFrame> frames = event.getStackTrace().getFrames();
        for (RecordedFrame frame : frames) {
            String type = frame.getMethod().getType().getName();
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
                return type + "." + frame.getMethod().getName();
            }
        }
        RecordedFrame top = frames.get(0);
        return top.getMethod().getType().getName() + "." + top.getMethod().getName();
    }

    @Override
    public void close() {
        recording.close();
    }
}
