package io.dlock.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dlock}: the top-level command; does nothing itself but hold the shared options. */
@Command(name = "dlock",
        versionProvider = DlockCommand.Version.class,
        synopsisSubcommandLabel = "COMMAND",
        header = "Distributed locks on Redis (Redisson-compatible), from the command line.",
        description = {
            "Run a command while holding a lock, across processes and hosts; inspect, watch and force-release locks; "
                    + "see who leads an election.",
            "Redis: --redis URI, else $DLOCK_REDIS, else " + RedisUris.DEFAULT + ".",
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  dlock run --wait 0 nightly-report -- /usr/local/bin/report.sh",
            "  dlock status --json nightly-report",
            "  dlock watch nightly-report",
            "  dlock leader --watch scheduler",
            "  dlock demo",
            "",
            "Run 'dlock COMMAND --help' for the options of a command; docs: dlock-cli/README.md.",
        },
        subcommands = {RunCommand.class, StatusCommand.class, WatchCommand.class, LeaderCommand.class,
            UnlockCommand.class, DemoCommand.class, CommandLine.HelpCommand.class})
final class DlockCommand extends BaseCommand {

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "Print the version and exit.")
    boolean version;

    @Override
    public Integer call() {
        throw CliException.usage("missing command (run, status, watch, leader, unlock, demo); see 'dlock --help'");
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = DlockCommand.class.getPackage().getImplementationVersion();
            return new String[] {"dlock " + (v == null ? "(development build)" : v)};
        }
    }
}
