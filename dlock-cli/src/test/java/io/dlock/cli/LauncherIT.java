package io.dlock.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ./dlock} launcher at the repository root: when the jar is missing it builds it with Maven, and what it
 * prints must be plain text. Maven 3.8 prints terminal escape codes ({@code ESC[0m}) even with {@code -B -q}, so the
 * launcher strips them. The build runs a stand-in {@code mvn} (first on {@code PATH}) that prints such codes the way
 * Maven does and puts the real jar in place: the test sees what the launcher makes of Maven's output without running
 * a nested Maven build of this very project.
 */
@Timeout(value = 60, unit = SECONDS)
class LauncherIT {
    private static final Path LAUNCHER = Path.of("..", "dlock");

    @TempDir
    Path tmp;

    @Test
    void buildOutputReachesTheUserWithoutTerminalEscapeCodes() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("checkout"));
        Path launcher = root.resolve("dlock");
        Files.copy(LAUNCHER, launcher);
        executable(launcher);
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path jar = DlockProcess.JAR.toAbsolutePath();
        Files.writeString(bin.resolve("mvn"), String.join("\n",
                "#!/usr/bin/env bash",
                "# stands in for Maven 3.8 with -B -q: escape codes on stdout and stderr, then the jar in place",
                "printf '\\033[0m\\033[0m'",
                "printf '\\033[1;33m[WARNING]\\033[m a warning\\033[0m\\n' >&2",
                "mkdir -p dlock-cli/target && cp '" + jar + "' dlock-cli/target/dlock.jar",
                ""), StandardCharsets.UTF_8);
        executable(bin.resolve("mvn"));

        ProcessBuilder builder = new ProcessBuilder("bash", launcher.toString(), "--version").directory(tmp.toFile());
        builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        builder.environment().remove("DLOCK_REDIS");
        Path stdout = tmp.resolve("out.txt");
        Path stderr = tmp.resolve("err.txt");
        builder.redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        Process launched = builder.start();
        launched.getOutputStream().close();
        assertThat(launched.waitFor(45, TimeUnit.SECONDS)).as("the launcher ends").isTrue();

        String out = Files.readString(stdout);
        String err = Files.readString(stderr);
        assertThat(launched.exitValue()).as("exit code; stderr: %s", err).isZero();
        assertThat(err).as("the launcher says it builds").contains("dlock: building dlock-cli/target/dlock.jar")
                .as("Maven's own lines are passed on").contains("[WARNING] a warning");
        assertThat(out).as("the version").isNotBlank();
        assertThat(out + err).as("no terminal escape codes").doesNotContain("\u001b");
        assertThat(root.resolve("dlock-cli/target/dlock.jar")).isRegularFile();
    }

    @Test
    void aFailedBuildStillExitsSeventyWithCleanOutput() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("checkout"));
        Path launcher = root.resolve("dlock");
        Files.copy(LAUNCHER, launcher, StandardCopyOption.REPLACE_EXISTING);
        executable(launcher);
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Files.writeString(bin.resolve("mvn"), String.join("\n",
                "#!/usr/bin/env bash",
                "printf '\\033[1;31m[ERROR]\\033[m compilation failed\\033[0m\\n'",
                "exit 1",
                ""), StandardCharsets.UTF_8);
        executable(bin.resolve("mvn"));

        ProcessBuilder builder = new ProcessBuilder("bash", launcher.toString(), "--version").directory(tmp.toFile());
        builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        builder.redirectErrorStream(true);
        Process launched = builder.start();
        launched.getOutputStream().close();
        String output = new String(launched.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(launched.waitFor(45, TimeUnit.SECONDS)).isTrue();
        assertThat(launched.exitValue()).as("exit code; output: %s", output).isEqualTo(70);
        assertThat(output).contains("[ERROR] compilation failed").contains("dlock: the build failed")
                .doesNotContain("\u001b");
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
