package io.dlock.redisprocess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where servers keep their files and how they are read and removed: one private directory per {@link RedisServer}
 * under {@code ${java.io.tmpdir}/dlock-testkit/servers/} (working directory, {@code redis.log}, {@code stdout.log},
 * {@code tls/}), read and deleted without throwing. The directory name predates the split of the test kit; it stays
 * so that the orphan reaper of this version and older ones share one pid directory.
 */
final class ServerFiles {
    /** The server's log file in its directory. */
    static final String LOG_FILE = "redis.log";
    /** Standard output and error of the process (what it prints before its log file is open). */
    static final String STDOUT_FILE = "stdout.log";

    private static final Logger LOG = LoggerFactory.getLogger(ServerFiles.class);

    private ServerFiles() {
    }

    /** {@code ${java.io.tmpdir}/dlock-testkit}: the embedded binary, the pid files and the servers' directories. */
    static Path baseDir() {
        return RedisBinary.cacheDir();
    }

    /** {@code <base>/servers}: the parent of every server's private directory. */
    static Path serversDir() {
        return baseDir().resolve("servers");
    }

    /** Creates a new private directory {@code <base>/servers/redis-*}. */
    static Path newServerDir() {
        Path parent = serversDir();
        try {
            Files.createDirectories(parent);
            return Files.createTempDirectory(parent, "redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for redis-server under " + parent, e);
        }
    }

    /** @return whether {@code dir} is a server directory below {@link #serversDir()} (so it may be deleted) */
    static boolean isServerDir(Path dir) {
        Path parent = serversDir().toAbsolutePath().normalize();
        Path d = dir.toAbsolutePath().normalize();
        return d.startsWith(parent) && !d.equals(parent);
    }

    static long sizeQuietly(Path f) {
        try {
            return Files.size(f);
        } catch (IOException e) {
            return 0;
        }
    }

    /** @return the file's content from byte {@code offset} on, or "" when it cannot be read */
    static String readQuietly(Path f, long offset) {
        try {
            byte[] bytes = Files.readAllBytes(f);
            int from = (int) Math.min(bytes.length, Math.max(0, offset));
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** @return the last {@code maxLines} lines of {@code text} (a final newline does not count as a line) */
    static String tail(String text, int maxLines) {
        if (maxLines <= 0 || text.isEmpty()) {
            return "";
        }
        List<String> lines = Arrays.asList(text.split("\n", -1));
        if (lines.get(lines.size() - 1).isEmpty()) {
            lines = lines.subList(0, lines.size() - 1);
        }
        return String.join("\n", lines.subList(Math.max(0, lines.size() - maxLines), lines.size()));
    }

    static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            LOG.debug("cannot delete {}", f, e);
        }
    }

    static void deleteTreeQuietly(Path root) {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = new ArrayList<>(walk.toList());
        } catch (IOException | UncheckedIOException e) {
            paths = Collections.emptyList();
        }
        paths.sort(Comparator.reverseOrder());
        for (Path p : paths) {
            deleteQuietly(p);
        }
    }
}
