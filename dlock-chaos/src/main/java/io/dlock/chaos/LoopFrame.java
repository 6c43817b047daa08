package io.dlock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;

import static io.dlock.chaos.Event.Type.BYE;
import static io.dlock.chaos.Event.Type.HELLO;

/**
 * The frame every worker loop runs in, written once: {@code HELLO} with the loop's identity, steps until the stop file
 * appears (an interrupt ends them too, the flag kept), then the loop's own clean-up, {@code BYE} and the log closed,
 * whatever a step threw.
 */
final class LoopFrame {
    /** One step of a loop. */
    @FunctionalInterface
    interface Step {
        void run() throws InterruptedException;
    }

    private LoopFrame() {
    }

    /**
     * @param hello   the {@code HELLO} event's detail (who the loop is)
     * @param atEnd   the loop's own clean-up before {@code BYE} (closing what it opened)
     */
    static void run(EventLog log, String hello, Path stopFile, Step step, Runnable atEnd) {
        log.record(HELLO, hello);
        try {
            while (!Files.exists(stopFile)) {
                step.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            atEnd.run();
            log.record(BYE, "");
            log.close();
        }
    }
}
