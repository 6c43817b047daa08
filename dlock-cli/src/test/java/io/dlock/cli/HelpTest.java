package io.dlock.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** --help on every command, in process (the *IT classes run the jar). */
class HelpTest {

    private record Outcome(int code, String out, String err) {
    }

    private static Outcome execute(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Outcome(code, out.toString(), err.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"run", "status", "watch", "leader", "unlock", "demo"})
    void everyCommandHasHelpWithItsExitCodes(String command) {
        Outcome o = execute(command, "--help");
        assertThat(o.code).isZero();
        assertThat(o.out).contains("Usage:", "dlock " + command, "--redis", "Exit codes:", "69");
        assertThat(o.err).isEmpty();
        assertThat(execute("help", command).out).isEqualTo(o.out);
    }

    @Test
    void topLevelHelpListsCommandsAndExitCodes() {
        Outcome o = execute("--help");
        assertThat(o.code).isZero();
        assertThat(o.out).contains("run", "status", "watch", "leader", "unlock", "demo", "Exit codes:", "DLOCK_REDIS");
    }

    @Test
    void runHelpDocumentsEveryExitCode() {
        String help = execute("run", "--help").out;
        assertThat(help).contains("--wait", "--lease", "--fair", "--read", "--write", "--conflict-exit-code",
                "--on-lease-lost", "--kill-after", "--watchdog");
        for (String code : new String[] {"75", "76", "126", "127", "2", "69", "70", "77", "78"}) {
            assertThat(help).containsPattern("(?m)^\\s+" + code + "\\s");
        }
    }

    @Test
    void versionIsPrinted() {
        Outcome o = execute("--version");
        assertThat(o.code).isZero();
        assertThat(o.out).startsWith("dlock ");
    }

    @Test
    void noCommandIsAUsageError() {
        Outcome o = execute();
        assertThat(o.code).isEqualTo(2);
        assertThat(o.err.strip()).startsWith("dlock: missing command").doesNotContain("\n");
    }
}
