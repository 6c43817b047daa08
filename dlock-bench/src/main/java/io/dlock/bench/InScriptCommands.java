package io.dlock.bench;

import io.dlock.LockClient;
import org.redisson.Redisson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Redis command names that a Lua script of either library may run: every literal name in a {@code redis.call}
 * or {@code redis.pcall} of dlock's script files ({@code io/dlock/**.lua}) and of Redisson's classes
 * ({@code org/redisson/**.class}, where the scripts are string constants), plus the names the scripts pass as an
 * argument. A command in this set may have been run by a script, so its calls cannot be attributed to the client.
 *
 * <p>Scanned from the jars (or class folders) on the class path at start-up, so a new script of either library is
 * seen without editing the bench.
 */
final class InScriptCommands {
    private static final Pattern CALL = Pattern.compile("redis\\.p?call\\(\\s*['\"]([A-Za-z_]+)['\"]");

    /**
     * Names scripts pass as an argument ({@code redis.call(command, ...)}, {@code redis.call(ARGV[n], ...)}): in both
     * libraries' lock scripts that is the publish command of the wake-up, PUBLISH or SPUBLISH.
     */
    static final Set<String> PASSED_AS_ARGUMENT = Set.of("publish", "spublish");

    private InScriptCommands() {
    }

    /** @return lower-case command names; never empty for dlock (a scan that finds nothing fails) */
    static Set<String> scan() {
        Set<String> names = new TreeSet<>(PASSED_AS_ARGUMENT);
        Set<String> dlock = scan(LockClient.class, "io/dlock", ".lua");
        Set<String> redisson = scan(Redisson.class, "org/redisson", ".class");
        if (dlock.isEmpty() || redisson.isEmpty()) {
            throw new IllegalStateException("no script found on the class path (dlock " + dlock.size()
                    + " names, Redisson " + redisson.size() + "): round trips would be overcounted");
        }
        names.addAll(dlock);
        names.addAll(redisson);
        return names;
    }

    /** Command names called literally in the files under {@code folder} of the jar or folder holding {@code anchor}. */
    private static Set<String> scan(Class<?> anchor, String folder, String suffix) {
        try {
            Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isDirectory(location)) {
                return scanTree(location.resolve(folder), suffix);
            }
            try (FileSystem jar = FileSystems.newFileSystem(location)) {
                return scanTree(jar.getPath(folder), suffix);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<String> scanTree(Path root, String suffix) throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(suffix))::iterator) {
                // ISO-8859-1 maps every byte to one char: the ASCII of a class file's string constants stays intact
                Matcher m = CALL.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                while (m.find()) {
                    names.add(m.group(1).toLowerCase(Locale.ROOT));
                }
            }
        }
        return names;
    }
}
