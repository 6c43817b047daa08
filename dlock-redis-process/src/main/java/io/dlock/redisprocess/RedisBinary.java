package io.dlock.redisprocess;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the {@code redis-server} executable that {@link RedisServer} runs. In order:
 * <ol>
 *   <li>the environment variable {@value #ENV_VAR}, if set and not blank: the word {@value #EMBEDDED} forces the
 *       embedded binary below (whatever {@code PATH} holds: CI runs the suite that way to cover the Redis 6.2 a new
 *       machine gets); anything else must name an executable file, else {@link #resolve()} fails (a mistyped path is
 *       not silently replaced by another binary);</li>
 *   <li>{@code redis-server} in a directory of {@code PATH};</li>
 *   <li>the Linux binary shipped inside the {@code com.github.codemonstur:embedded-redis} jar (x86_64:
 *       {@value #EMBEDDED_LINUX_AMD64}, aarch64: {@value #EMBEDDED_LINUX_ARM64}), extracted once to
 *       {@code ${java.io.tmpdir}/dlock-testkit/<resource name>}. It is written to a temporary file in that directory,
 *       made executable and then atomically renamed, so parallel JVMs never run a half-written file.</li>
 * </ol>
 * Thread-safe; the result of {@link #resolve()} is cached for the life of the JVM.
 */
public final class RedisBinary {

    /** The environment variable naming the {@code redis-server} to use: {@value}. */
    public static final String ENV_VAR = "REDIS_SERVER";
    /** The value of {@value #ENV_VAR} that forces the embedded binary: {@value}. */
    public static final String EMBEDDED = "embedded";
    /** Class-path resource of the embedded-redis jar for Linux on x86_64. */
    static final String EMBEDDED_LINUX_AMD64 = "redis-server-6.2.6-v5-linux-amd64";
    /** Class-path resource of the embedded-redis jar for Linux on aarch64. */
    static final String EMBEDDED_LINUX_ARM64 = "redis-server-6.2.7-linux-arm64";

    private static final String EXECUTABLE = "redis-server";
    private static Path cached;
    private static final Map<Path, Boolean> PROTECTED_MODE = new ConcurrentHashMap<>();

    private RedisBinary() {
    }

    /**
     * Returns the {@code redis-server} to run, choosing as described in the class comment. The first call may block
     * while it extracts the embedded binary (some megabytes); later calls return the cached result at once.
     *
     * @return an absolute path to an executable file
     * @throws IllegalStateException when {@value #ENV_VAR} is set but is neither {@value #EMBEDDED} nor an executable
     *         file, or when no binary can be found (for example on an OS or CPU with no embedded binary); the message
     *         says what was tried
     */
    public static synchronized Path resolve() {
        if (cached == null) {
            cached = resolve(System.getenv(ENV_VAR), System.getenv("PATH"),
                    System.getProperty("os.name"), System.getProperty("os.arch"), cacheDir());
        }
        return cached;
    }

    /** The choice of {@link #resolve()} with every input given, for tests. Not cached. */
    static Path resolve(String envValue, String pathValue, String osName, String osArch, Path cacheDir) {
        if (envValue != null && envValue.strip().equals(EMBEDDED)) {
            Optional<String> resource = embeddedResourceName(osName, osArch);
            if (resource.isEmpty()) {
                throw new IllegalStateException(ENV_VAR + "=" + EMBEDDED + " but the embedded-redis jar has no Linux"
                        + " binary for os.name=" + osName + ", os.arch=" + osArch + " (only Linux x86_64 and aarch64)");
            }
            return extractEmbedded(resource.get(), cacheDir);
        }
        if (envValue != null && !envValue.isBlank()) {
            Path p = Paths.get(envValue.strip()).toAbsolutePath();
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new IllegalStateException(
                        "environment variable " + ENV_VAR + "=" + envValue + " does not name an executable file");
            }
            return p;
        }
        List<String> tried = new ArrayList<>();
        tried.add(ENV_VAR + " is not set");
        Optional<Path> onPath = findOnPath(pathValue);
        if (onPath.isPresent()) {
            return onPath.get();
        }
        tried.add(EXECUTABLE + " is not on PATH (" + (pathValue == null ? "PATH not set" : pathValue) + ")");
        Optional<String> resource = embeddedResourceName(osName, osArch);
        if (resource.isEmpty()) {
            tried.add("the embedded-redis jar has no Linux binary for os.name=" + osName + ", os.arch=" + osArch
                    + " (only Linux x86_64 and aarch64)");
            throw notFound(tried, null);
        }
        try {
            return extractEmbedded(resource.get(), cacheDir);
        } catch (RuntimeException e) {
            tried.add("extracting class-path resource /" + resource.get() + " to " + cacheDir + " failed: " + e);
            throw notFound(tried, e);
        }
    }

    private static IllegalStateException notFound(List<String> tried, Throwable cause) {
        return new IllegalStateException("no redis-server executable found: " + String.join("; ", tried)
                + ". Install redis-server (e.g. apt-get install redis-server) or set " + ENV_VAR
                + " to its path.", cause);
    }

    /** Looks for an executable regular file named {@code redis-server} in the directories of {@code pathValue}. */
    static Optional<Path> findOnPath(String pathValue) {
        if (pathValue == null || pathValue.isBlank()) {
            return Optional.empty();
        }
        for (String dir : pathValue.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            try {
                Path candidate = Paths.get(dir).resolve(EXECUTABLE);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate.toAbsolutePath());
                }
            } catch (RuntimeException ignored) {
                // an invalid PATH entry: skip it
            }
        }
        return Optional.empty();
    }

    /** The embedded-redis resource for this OS and CPU, if the jar ships one (Linux x86_64 and aarch64 only). */
    static Optional<String> embeddedResourceName(String osName, String osArch) {
        String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
        String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            return Optional.empty();
        }
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            return Optional.of(EMBEDDED_LINUX_AMD64);
        }
        if (arch.equals("aarch64") || arch.equals("arm64")) {
            return Optional.of(EMBEDDED_LINUX_ARM64);
        }
        return Optional.empty();
    }

    /**
     * Extracts a {@code redis-server} executable shipped as class-path resource {@code /resourceName} (for example an
     * older server from another artifact, to test what a client does with it) to
     * {@code ${java.io.tmpdir}/dlock-testkit/resourceName}, as the embedded binary is; returns the existing file if a
     * complete one is there. Pass the result to {@link RedisServerBuilder#binary}.
     *
     * @throws IllegalStateException when the resource is not on the class path
     * @throws UncheckedIOException  when writing fails
     */
    public static Path extract(String resourceName) {
        return extractEmbedded(resourceName, cacheDir());
    }

    /**
     * Whether {@code binary} understands {@code --protected-mode} (Redis 3.2 and later), from its
     * {@code --version} output; cached per path. Servers before 3.2 refuse to start with it.
     */
    static boolean hasProtectedMode(Path binary) {
        return PROTECTED_MODE.computeIfAbsent(binary, RedisBinary::versionAtLeast32);
    }

    private static boolean versionAtLeast32(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return versionLine(out).map(v -> v.atLeast(3, 2)).orElse(true);
        } catch (IOException e) {
            return true; // starting it will fail with the real reason
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /**
     * What a server binary says of itself in its {@code --version} line: {@code Redis server v=7.0.15 sha=…} or
     * {@code Valkey server v=8.1.1 sha=…}. The major and minor numbers are the server's own: a Valkey binary reports
     * its Valkey version here (8.1), not the Redis line it is compatible with, which only {@code INFO} tells
     * ({@code redis_version:7.2.4}).
     *
     * @param server "Redis" or "Valkey" (as the line spells it; "Redis" for a line that names no server)
     */
    record VersionLine(String server, int major, int minor) {
        boolean atLeast(int wantMajor, int wantMinor) {
            return major > wantMajor || (major == wantMajor && minor >= wantMinor);
        }
    }

    private static final Pattern VERSION_LINE = Pattern.compile("(?:(\\w+) server )?v=(\\d+)\\.(\\d+)");

    /** @return the first {@code [<Server> server ]v=MAJOR.MINOR} of {@code --version} output, if any */
    static Optional<VersionLine> versionLine(String versionOutput) {
        Matcher m = VERSION_LINE.matcher(versionOutput == null ? "" : versionOutput);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new VersionLine(m.group(1) == null ? "Redis" : m.group(1),
                Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
    }

    /**
     * {@code ${java.io.tmpdir}/dlock-testkit}: where the embedded binary is extracted (and, below, the pid files and
     * server directories). The name predates the module split and is kept, so this and older versions share it.
     */
    static Path cacheDir() {
        return Paths.get(System.getProperty("java.io.tmpdir"), "dlock-testkit");
    }

    /**
     * Extracts the embedded binary for this machine, bypassing {@value #ENV_VAR} and {@code PATH}.
     *
     * @throws IllegalStateException when the jar has no binary for this OS and CPU
     */
    static Path extractEmbedded() {
        String os = System.getProperty("os.name");
        String arch = System.getProperty("os.arch");
        String resource = embeddedResourceName(os, arch).orElseThrow(() -> new IllegalStateException(
                "the embedded-redis jar has no Linux binary for os.name=" + os + ", os.arch=" + arch));
        return extractEmbedded(resource, cacheDir());
    }

    /**
     * Extracts class-path resource {@code /resourceName} to {@code cacheDir/resourceName} unless an executable file
     * is already there: written to a temporary file, chmod 755, then renamed atomically over the target.
     *
     * @throws IllegalStateException when the resource is not on the class path
     * @throws UncheckedIOException when writing fails
     */
    static Path extractEmbedded(String resourceName, Path cacheDir) {
        Path target = cacheDir.resolve(resourceName).toAbsolutePath();
        if (Files.isRegularFile(target) && Files.isExecutable(target)) {
            return target;
        }
        Path tmp = null;
        try (InputStream in = RedisBinary.class.getResourceAsStream("/" + resourceName)) {
            if (in == null) {
                throw new IllegalStateException("class-path resource /" + resourceName
                        + " not found (is com.github.codemonstur:embedded-redis on the class path?)");
            }
            Files.createDirectories(cacheDir);
            tmp = Files.createTempFile(cacheDir, resourceName + ".", ".tmp");
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            } catch (UnsupportedOperationException e) {
                if (!tmp.toFile().setExecutable(true, false)) {
                    throw new IOException("cannot make " + tmp + " executable", e);
                }
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
            return target;
        } catch (IOException e) {
            // another JVM may have won the race and left a complete file
            if (Files.isRegularFile(target) && Files.isExecutable(target)) {
                return target;
            }
            throw new UncheckedIOException("cannot extract /" + resourceName + " to " + target, e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }
    }
}
