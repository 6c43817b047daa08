package io.dlock.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What {@code dlock demo} prints, and its score. A scenario is its title, its story (indented lines, client ids cut
 * to 8 characters), its checks ({@code ok} / {@code FAIL}) and its verdict: PASS when it completed with at least
 * one check and no failed one. Lines of a scenario are flushed at once (the demo is watched as it runs).
 */
final class DemoReport {
    private static final Pattern UUID_TEXT = Pattern.compile(
            "\\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b");

    private final PrintStream out;
    private int checks;           // of the current scenario
    private boolean checkFailed;  // in the current scenario
    private int passed;
    private int failed;

    DemoReport(PrintStream out) {
        this.out = out;
    }

    /** A line outside the scenarios, as it is. */
    void line(String text) {
        out.println(text);
    }

    void beginScenario(String title) {
        out.println();
        out.println(title);
        checks = 0;
        checkFailed = false;
    }

    /** A line of the story; client ids (UUIDs) are cut to their first 8 characters. */
    void say(String line) {
        out.println("   " + UUID_TEXT.matcher(line).replaceAll("$1"));
        out.flush();
    }

    void check(String what, boolean ok) {
        checks++;
        checkFailed |= !ok;
        out.println("   " + (ok ? "ok    " : "FAIL  ") + what);
        out.flush();
    }

    /** The scenario ended with an exception (then it fails); the stack trace too with {@code --verbose}. */
    void error(Exception e) {
        say("error: " + Main.oneLine(String.valueOf(e)));
        if (Logging.isVerbose()) {
            e.printStackTrace(out);
        }
    }

    /** @param completed the scenario ran to its end (without an exception, and did not give up) */
    void endScenario(boolean completed, long millis) {
        boolean ok = completed && checks > 0 && !checkFailed;
        if (ok) {
            passed++;
        } else {
            failed++;
        }
        out.println("   => " + (ok ? "PASS" : "FAIL") + "  (" + DurationText.formatMillis(millis) + ")");
        out.flush();
    }

    void summary(long millis) {
        out.println();
        out.printf(Locale.ROOT, "dlock demo: %d passed, %d failed, in %s%n", passed, failed,
                DurationText.formatMillis(millis));
    }

    /** 0 when every scenario passed, else 1. */
    int exitCode() {
        return failed == 0 ? ExitCodes.OK : ExitCodes.FAILED;
    }

    void flush() {
        out.flush();
    }
}
