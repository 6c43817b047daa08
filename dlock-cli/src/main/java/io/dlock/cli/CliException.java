package io.dlock.cli;

/** Ends a command with a one-line message on stderr ({@code dlock: …}) and an exit code. */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    static CliException usage(String message) {
        return new CliException(ExitCodes.USAGE, message);
    }
}
