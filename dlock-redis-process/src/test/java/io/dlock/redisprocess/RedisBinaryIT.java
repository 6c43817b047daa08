package io.dlock.redisprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class RedisBinaryIT {

    @TempDir
    Path tmp;

    @Test
    void resolvesAnExecutable() {
        Path binary = RedisBinary.resolve();
        assertThat(binary).isAbsolute().isRegularFile().isExecutable();
        assertThat(RedisBinary.resolve()).isSameAs(binary);
    }

    @Test
    void environmentVariableWinsAndMustBeExecutable() throws IOException {
        Path fake = executable(tmp.resolve("my-redis"));
        Path pathDir = Files.createDirectories(tmp.resolve("bin"));
        executable(pathDir.resolve("redis-server"));
        assertThat(RedisBinary.resolve(fake.toString(), pathDir.toString(), "Linux", "amd64", tmp.resolve("cache")))
                .isEqualTo(fake);

        assertThatThrownBy(() -> RedisBinary.resolve(tmp.resolve("missing").toString(), pathDir.toString(), "Linux",
                "amd64", tmp.resolve("cache")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REDIS_SERVER")
                .hasMessageContaining("missing");
        Path notExecutable = Files.writeString(tmp.resolve("plain"), "x");
        assertThatThrownBy(() -> RedisBinary.resolve(notExecutable.toString(), null, "Linux", "amd64", tmp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not name an executable file");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theWordEmbeddedForcesTheEmbeddedBinaryOverPath() throws Exception {
        Path pathDir = Files.createDirectories(tmp.resolve("bin"));
        executable(pathDir.resolve("redis-server"));
        Path cache = tmp.resolve("cache");
        String arch = System.getProperty("os.arch");
        Path chosen = RedisBinary.resolve(" embedded ", pathDir.toString(), "Linux", arch, cache);
        assertThat(chosen).isEqualTo(cache.resolve(RedisBinary.embeddedResourceName("Linux", arch).orElseThrow())
                .toAbsolutePath()).isExecutable();
        Process version = new ProcessBuilder(chosen.toString(), "--version").redirectErrorStream(true).start();
        assertThat(new String(version.getInputStream().readAllBytes())).contains("v=6.2.");
        assertThat(version.waitFor()).isZero();

        assertThatThrownBy(() -> RedisBinary.resolve("embedded", pathDir.toString(), "Windows 11", "amd64", cache))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REDIS_SERVER=embedded")
                .hasMessageContaining("os.name=Windows 11");
    }

    @Test
    void pathIsSearchedInOrder() throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Path first = Files.createDirectories(tmp.resolve("first"));
        Path second = Files.createDirectories(tmp.resolve("second"));
        Files.writeString(first.resolve("redis-server"), "not executable");
        Path expected = executable(second.resolve("redis-server"));
        executable(Files.createDirectories(tmp.resolve("third")).resolve("redis-server"));
        String path = String.join(java.io.File.pathSeparator, empty.toString(), "", first.toString(),
                second.toString(), tmp.resolve("third").toString());
        assertThat(RedisBinary.resolve(null, path, "Linux", "amd64", tmp.resolve("cache"))).isEqualTo(expected);
        assertThat(RedisBinary.resolve("  ", path, "Linux", "amd64", tmp.resolve("cache"))).isEqualTo(expected);
    }

    @Test
    void embeddedResourceIsChosenByOsAndArch() {
        assertThat(RedisBinary.embeddedResourceName("Linux", "amd64")).contains("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.embeddedResourceName("Linux", "x86_64")).contains("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.embeddedResourceName("Linux", "aarch64")).contains("redis-server-6.2.7-linux-arm64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "aarch64")).isEmpty();
        assertThat(RedisBinary.embeddedResourceName("Linux", "riscv64")).isEmpty();
        assertThat(RedisBinary.embeddedResourceName("Windows 11", "amd64")).isEmpty();
    }

    @Test
    void unsupportedPlatformFailsNamingWhatWasTried() {
        assertThatThrownBy(() -> RedisBinary.resolve(null, tmp.toString(), "Windows 11", "amd64", tmp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REDIS_SERVER is not set")
                .hasMessageContaining("redis-server is not on PATH (" + tmp + ")")
                .hasMessageContaining("os.name=Windows 11, os.arch=amd64");
        assertThatThrownBy(() -> RedisBinary.resolve(null, null, "Linux", "s390x", tmp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PATH not set")
                .hasMessageContaining("os.arch=s390x");
    }

    @Test
    void missingResourceFailsClearly() {
        assertThatThrownBy(() -> RedisBinary.extractEmbedded("no-such-redis-server", tmp))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/no-such-redis-server");
    }

    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64", "aarch64"})
    void embeddedBinaryIsExtractedOnceAndRuns() throws IOException {
        String resource = RedisBinary.embeddedResourceName(System.getProperty("os.name"),
                System.getProperty("os.arch")).orElseThrow();
        Path cache = tmp.resolve("cache");

        Path extracted = RedisBinary.extractEmbedded(resource, cache);

        assertThat(extracted).isEqualTo(cache.resolve(resource).toAbsolutePath()).isRegularFile().isExecutable();
        try (var files = Files.list(cache)) {
            assertThat(files).containsExactly(extracted); // no temporary file left
        }
        long modified = Files.getLastModifiedTime(extracted).toMillis();
        assertThat(RedisBinary.extractEmbedded(resource, cache)).isEqualTo(extracted);
        assertThat(Files.getLastModifiedTime(extracted).toMillis()).isEqualTo(modified);
        // with nothing else available, resolution falls back to the same extraction
        assertThat(RedisBinary.resolve(null, "", System.getProperty("os.name"), System.getProperty("os.arch"), cache))
                .isEqualTo(extracted);

        try (RedisServer server = RedisServer.builder().binary(extracted).start()) {
            assertThat(server.binary()).isEqualTo(extracted);
            assertThat(server.version()).startsWith("6.2.");
            assertThat(server.ping(Duration.ofSeconds(2))).isTrue();
            server.restart();
            assertThat(server.ping(Duration.ofSeconds(2))).isTrue();
        }
    }

    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64", "aarch64"})
    void defaultCacheLocationIsUnderTmpdir() {
        Path extracted = RedisBinary.extractEmbedded();
        assertThat(extracted.getParent())
                .isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "dlock-testkit").toAbsolutePath());
        assertThat(extracted).isExecutable();
    }

    private static Path executable(Path file) throws IOException {
        Files.writeString(file, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}
