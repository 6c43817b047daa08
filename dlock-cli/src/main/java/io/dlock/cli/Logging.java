package io.dlock.cli;

/**
 * Keeps Lettuce's and Netty's logging quiet: slf4j-simple reads its settings once, when the first logger is made,
 * so these properties are set before anything logs (Main's first statement; {@code --verbose} is parsed before any
 * Redis class is touched). A {@code -D} given on the java command line wins.
 */
final class Logging {
    private static final String DEFAULT_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";
    private static final String DLOCK_LEVEL = "org.slf4j.simpleLogger.log.io.dlock";
    /** Its renewal warnings, and the hold table's lease-lost warning, would repeat what `dlock run` prints itself. */
    private static final String RENEWER_LEVEL = "org.slf4j.simpleLogger.log.io.dlock.internal.lease.LeaseRenewer";
    private static final String HOLDS_LEVEL = "org.slf4j.simpleLogger.log.io.dlock.internal.lease.HoldTable";
    private static volatile boolean verbose;

    private Logging() {
    }

    /** WARN for everything, on stderr. */
    static void quiet() {
        setIfAbsent(DEFAULT_LEVEL, "warn");
        setIfAbsent(RENEWER_LEVEL, "error");
        setIfAbsent(HOLDS_LEVEL, "error");
        setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
        setIfAbsent("org.slf4j.simpleLogger.showThreadName", "false");
        setIfAbsent("org.slf4j.simpleLogger.showShortLogName", "true");
    }

    /** {@code --verbose}: INFO for libraries, DEBUG for dlock, and stack traces with error messages. */
    static void verbose() {
        verbose = true;
        System.setProperty(DEFAULT_LEVEL, "info");
        System.setProperty(DLOCK_LEVEL, "debug");
        System.setProperty(RENEWER_LEVEL, "debug");
        System.setProperty(HOLDS_LEVEL, "debug");
    }

    static boolean isVerbose() {
        return verbose;
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
