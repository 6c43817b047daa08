package io.dlock.cli;

/** Placeholder until the command line lands. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.err.println("dlock: the command line is being built");
        System.exit(70);
    }
}
