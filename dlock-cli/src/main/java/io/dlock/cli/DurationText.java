package io.dlock.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people type them on a command line, and back.
 *
 * <p>Accepted: a plain number of seconds as {@code flock -w} takes it ({@code 10}, {@code 0.5}); a number with a
 * unit, {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} ({@code 500ms}, {@code 10s}, {@code 2m},
 * {@code 1h}), several of them in a row ({@code 1m30s}); or ISO-8601 ({@code PT5S}). Case does not matter; negative
 * durations are rejected; the result is rounded to whole milliseconds.
 */
public final class DurationText {
    private static final Pattern PLAIN = Pattern.compile("\\d+(\\.\\d+)?");
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
    private static final BigDecimal MAX_MILLIS = BigDecimal.valueOf(Long.MAX_VALUE / 1_000_000L);

    private DurationText() {
    }

    /**
     * @throws IllegalArgumentException with a message fit for the user when {@code text} is not a duration
     */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty duration");
        }
        String s = text.strip().toLowerCase(Locale.ROOT);
        if (s.startsWith("p") || s.startsWith("-p") || s.startsWith("+p")) {
            Duration d;
            try {
                d = Duration.parse(s.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException | ArithmeticException e) {
                throw invalid(text);
            }
            if (d.isNegative()) {
                throw new IllegalArgumentException("negative duration: '" + text + "'");
            }
            try {
                d.toMillis();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("duration too large: '" + text + "'");
            }
            return d.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        }
        if (s.startsWith("-")) {
            throw new IllegalArgumentException("negative duration: '" + text + "'");
        }
        BigDecimal millis;
        if (PLAIN.matcher(s).matches()) {
            millis = new BigDecimal(s).multiply(BigDecimal.valueOf(1000));
        } else {
            Matcher m = PART.matcher(s);
            int at = 0;
            millis = BigDecimal.ZERO;
            while (at < s.length()) {
                if (!m.find(at) || m.start() != at) {
                    throw invalid(text);
                }
                millis = millis.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitMillis(m.group(2)))));
                at = m.end();
            }
        }
        if (millis.compareTo(MAX_MILLIS) > 0) {
            throw new IllegalArgumentException("duration too large: '" + text + "'");
        }
        return Duration.ofMillis(millis.setScale(0, RoundingMode.HALF_UP).longValueExact());
    }

    private static long unitMillis(String unit) {
        switch (unit) {
            case "ms":
                return 1;
            case "s":
                return 1000;
            case "m":
                return 60_000;
            case "h":
                return 3_600_000;
            case "d":
                return 86_400_000;
            default:
                throw new IllegalStateException(unit);
        }
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("'" + text + "' is not a duration (examples: 500ms, 10s, 2m, 1h, PT5S, "
                + "or a number of seconds)");
    }

    /** A short human form: {@code 250ms}, {@code 1.5s}, {@code 2m05s}, {@code 1h02m}. */
    public static String format(Duration d) {
        return formatMillis(d.toMillis());
    }

    /** {@link #format(Duration)} of a number of milliseconds (negative values print as {@code 0ms}). */
    public static String formatMillis(long ms) {
        if (ms < 0) {
            ms = 0;
        }
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            long tenths = Math.round(ms / 100.0);
            return tenths % 10 == 0 ? (tenths / 10) + "s" : (tenths / 10) + "." + (tenths % 10) + "s";
        }
        long seconds = ms / 1000;
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
        }
        long minutes = seconds / 60;
        if (minutes < 24 * 60) {
            return String.format(Locale.ROOT, "%dh%02dm", minutes / 60, minutes % 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", minutes / (24 * 60), (minutes / 60) % 24);
    }
}
