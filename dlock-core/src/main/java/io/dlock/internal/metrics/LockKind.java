package io.dlock.internal.metrics;

/** The kinds of lock that metrics tell apart; {@link #tag()} is the value of the {@code kind} tag. */
public enum LockKind {
    PLAIN("plain"),
    FAIR("fair"),
    READ("read"),
    WRITE("write"),
    FENCED("fenced");

    private final String tag;

    LockKind(String tag) {
        this.tag = tag;
    }

    /** @return the tag value: the lower-case name */
    public String tag() {
        return tag;
    }
}
