package io.dlock.testkit;

/**
 * This run's share of a stress test's repetitions, so that CI can split a stress test's runs across its server lines
 * instead of repeating all of them on each: together the legs run every repetition once (the same total power), each
 * on its own server line.
 *
 * <p>The share is {@code K/N} ("the K-th of N parts", 1 ≤ K ≤ N), from the system property {@value #PROPERTY}, else
 * the environment variable {@value #ENV_VAR}, else {@code 1/1} (a plain {@code mvn verify} runs everything). Part
 * {@code K} of {@code total} repetitions is the indices {@code [from, to)} of an even split: parts differ in size by
 * at most one, and the parts of one {@code N} cover {@code 0..total-1} exactly once. A test names its repetitions by
 * index, so a failure names the same repetition whichever leg ran it.
 *
 * <p>Stateless and thread-safe; a malformed share fails loudly ({@link IllegalStateException}) rather than run nothing.
 */
public final class StressShare {

    /** The system property that sets the share: {@value}. */
    public static final String PROPERTY = "dlock.stress.share";
    /** The environment variable that sets the share when the property is not set: {@value}. */
    public static final String ENV_VAR = "DLOCK_STRESS_SHARE";

    private final int part;
    private final int parts;

    private StressShare(int part, int parts) {
        this.part = part;
        this.parts = parts;
    }

    /** @return this JVM's share, as the class comment describes */
    public static StressShare current() {
        String text = System.getProperty(PROPERTY);
        if (text == null || text.isBlank() || text.startsWith("${")) {
            text = System.getenv(ENV_VAR);
        }
        return parse(text == null || text.isBlank() ? "1/1" : text.strip());
    }

    /**
     * @param text {@code K/N} with {@code 1 <= K <= N}
     * @throws IllegalStateException when it is not that
     */
    public static StressShare parse(String text) {
        String[] kn = text.split("/");
        try {
            if (kn.length == 2) {
                int k = Integer.parseInt(kn[0].strip());
                int n = Integer.parseInt(kn[1].strip());
                if (n >= 1 && k >= 1 && k <= n) {
                    return new StressShare(k, n);
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalStateException("stress share '" + text + "' (" + PROPERTY + " / " + ENV_VAR
                + ") is not K/N with 1 <= K <= N");
    }

    /** @return the first index of this share of {@code total} repetitions */
    public int from(int total) {
        return (int) ((long) total * (part - 1) / parts);
    }

    /** @return one past the last index of this share of {@code total} repetitions */
    public int to(int total) {
        return (int) ((long) total * part / parts);
    }

    /** @return how many of {@code total} repetitions this share runs */
    public int count(int total) {
        return to(total) - from(total);
    }

    /** @return whether this share runs everything ({@code 1/1}) */
    public boolean isWhole() {
        return parts == 1;
    }

    @Override
    public String toString() {
        return part + "/" + parts;
    }
}
