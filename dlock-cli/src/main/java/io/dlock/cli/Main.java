package io.dlock.cli;

import io.dlock.LockException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code java -jar dlock.jar …}: parses the command line, runs the command, exits with its code. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // credentials never reach dlock's output: known before anything is printed, scrubbed from every line
        Secrets.register(System.getenv(RedisUris.ENV));
        Secrets.registerPassword(System.getenv(ConnectionOptions.PASSWORD_ENV));
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--redis=")) {
                Secrets.register(args[i].substring("--redis=".length()));
            } else if (args[i].equals("--redis") && i + 1 < args.length) {
                Secrets.register(args[i + 1]);
            }
        }
        Charset charset = Charset.defaultCharset();
        System.setOut(Secrets.scrubbing(new FileOutputStream(FileDescriptor.out), charset));
        System.setErr(Secrets.scrubbing(new FileOutputStream(FileDescriptor.err), charset));
        Logging.quiet(); // before any logger exists
        System.exit(run(args));
    }

    /** Runs {@code dlock args} and returns the exit code (without exiting; used by tests). */
    static int run(String... args) {
        return commandLine().execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new DlockCommand());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setExecutionExceptionHandler(Main::failure);
        cl.setOut(new PrintWriter(System.out, true));
        cl.setErr(new PrintWriter(System.err, true));
        // everything after `dlock run [OPTIONS] LOCK` is the command, as in flock(1)
        cl.getSubcommands().get("run").setStopAtPositional(true);
        setExitCodes(cl, "0", "2", "69", "70", "77", "78");
        setExitCodes(cl.getSubcommands().get("run"), "0", "2", "69", "70", "75", "76", "77", "78", "126", "127",
                "other");
        setExitCodes(cl.getSubcommands().get("status"), "0", "1", "2", "69", "70", "77", "78");
        setExitCodes(cl.getSubcommands().get("watch"), "0", "2", "69", "70", "77", "78");
        setExitCodes(cl.getSubcommands().get("leader"), "0", "1", "2", "69", "70", "77", "78");
        setExitCodes(cl.getSubcommands().get("unlock"), "0", "1", "2", "69", "70", "77", "78");
        setExitCodes(cl.getSubcommands().get("demo"), "0", "1", "2", "69", "70", "77", "78");
        return cl;
    }

    private static void setExitCodes(CommandLine cl, String... codes) {
        Map<String, String> list = new LinkedHashMap<>();
        for (String code : codes) {
            for (String entry : ExitCodes.LIST) {
                int colon = entry.indexOf(':');
                if (entry.substring(0, colon).equals(code)) {
                    String text = entry.substring(colon + 1);
                    if (code.equals("1") && cl.getCommandName().equals("status")) {
                        text = "a name holds something that is not a lock";
                    } else if (code.equals("1") && cl.getCommandName().equals("leader")) {
                        text = "no leader (nobody holds the election's lock), or the name holds something that is "
                                + "not a lock";
                    }
                    list.put(String.format("%5s", code), text);
                }
            }
        }
        cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(list);
    }

    /** Bad command line: one line on stderr, exit 2. */
    private static int usageError(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String where = cl.getCommandSpec().qualifiedName();
        e.getCommandLine().getErr().println("dlock: " + oneLine(e.getMessage()) + " (see '" + where + " --help')");
        return ExitCodes.USAGE;
    }

    /** A command failed: one line on stderr (a stack trace too with --verbose), and the matching exit code. */
    private static int failure(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        int code;
        String message;
        if (e instanceof CliException cli) {
            code = cli.exitCode;
            message = cli.getMessage();
        } else if (e instanceof LockException failure) {
            code = ExitCodes.of(failure);
            message = e.getMessage();
        } else {
            code = ExitCodes.SOFTWARE;
            message = "internal error: " + e;
        }
        PrintWriter err = cl.getErr();
        err.println("dlock: " + oneLine(message));
        if (Logging.isVerbose()) {
            e.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    static String oneLine(String message) {
        if (message == null) {
            return "(no message)";
        }
        return message.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
    }
}
