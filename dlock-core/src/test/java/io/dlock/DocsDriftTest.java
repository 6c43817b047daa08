package io.dlock;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Docs that cannot drift (issue 45 #5): every class, member and package that {@code docs/*.md} (in backticks) and the
 * package-infos (in {@code @code} and {@code @link}) name exists in the repository's code, and the public types that
 * {@code docs/api.md} lists for a package are the package's public types. Names of other projects (the JDK, Redis
 * commands, Redisson, Spring, Reactor) are listed in {@link #ELSEWHERE}; all-capital words (commands, constants) are
 * not checked.
 */
class DocsDriftTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    private static final Pattern TYPE = Pattern.compile("\\b(?:class|interface|record|enum|@interface)\\s+(\\w+)");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern NAME = Pattern.compile("\\b(io\\.dlock(?:\\.\\w+)+|[A-Z][A-Za-z0-9]*(?:[#.][a-z]\\w*)?)");
    /** Names the docs use that belong to other projects. */
    private static final Set<String> ELSEWHERE = Set.of("AutoConfiguration", "ChronoUnit", "ClientResources", "Clock",
            "CompletableFuture", "Duration", "Flux", "Mono", "IllegalArgumentException", "IllegalMonitorStateException",
            "IllegalStateException", "InterruptedException", "NullPointerException", "Throwable", "String", "Long",
            "System", "UUID", "SecureRandom", "LongSupplier", "LockRegistry", "LockRegistryLeaderInitiator",
            "RedisLockRegistry", "MeterBinder", "Observation", "ObservationRegistry", "RedisURI", "RCountDownLatch",
            "RExpirable", "RFencedLock", "RLock", "RLockReactive", "RPermitExpirableSemaphore", "RReadWriteLock",
            "RSemaphore", "RedissonMultiLock", "Djapicmp", "Protocol");

    /** Each type's simple name, and the code (comments stripped) of every file that declares one so named. */
    private final Map<String, List<String>> types = new HashMap<>();
    private final Set<String> packages = new HashSet<>();

    DocsDriftTest() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path file : files.filter(DocsDriftTest::isSource).toList()) {
                String text = Files.readString(file);
                Matcher pkg = PACKAGE.matcher(text);
                if (pkg.find()) {
                    packages.add(pkg.group(1));
                }
                String code = COMMENTS.matcher(text).replaceAll(" ");
                Matcher type = TYPE.matcher(code);
                while (type.find()) {
                    types.computeIfAbsent(type.group(1), t -> new ArrayList<>()).add(code);
                }
            }
        }
    }

    @Test
    void everyNameTheDocsUseExists() throws IOException {
        Set<String> missing = new TreeSet<>();
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            Pattern spans = doc.toString().endsWith(".md") ? Pattern.compile("`([^`\\n]+)`")
                    : Pattern.compile("\\{@(?:code|link|linkplain)\\s+([^}]+)}");
            Matcher span = spans.matcher(text);
            while (span.find()) {
                Matcher name = NAME.matcher(span.group(1));
                while (name.find()) {
                    String problem = problem(name.group(1));
                    if (problem != null) {
                        missing.add(ROOT.relativize(doc) + ": " + problem);
                    }
                }
            }
        }
        assertThat(missing).as("names in the docs that the code does not have").isEmpty();
    }

    @Test
    void theApiTableListsEveryPublicTypeOfItsPackages() throws IOException {
        String api = Files.readString(ROOT.resolve("docs/api.md"));
        for (String[] row : List.of(new String[]{"dlock-reactor", "io/dlock/reactor"},
                new String[]{"dlock-spring", "io/dlock/spring"})) {
            Matcher line = Pattern.compile("^\\| `" + row[0] + "` \\|.*$", Pattern.MULTILINE).matcher(api);
            assertThat(line.find()).as("docs/api.md has a row for " + row[0]).isTrue();
            String listed = line.group();
            int rest = listed.indexOf("The rest");
            Set<String> named = new TreeSet<>();
            Matcher tick = Pattern.compile("`@?([A-Z]\\w*)`").matcher(rest < 0 ? listed : listed.substring(0, rest));
            while (tick.find()) {
                named.add(tick.group(1));
            }
            assertThat(named).as("the public types docs/api.md lists for " + row[0])
                    .isEqualTo(publicTypes(ROOT.resolve(row[0]).resolve("src/main/java").resolve(row[1])));
        }
    }

    /** @return what is wrong with {@code name}, or null when the code has it or it is not checked */
    private String problem(String name) {
        if (name.startsWith("io.dlock")) {
            String[] parts = name.split("\\.");
            for (int cut = parts.length; cut >= 2; cut--) {
                String pkg = String.join(".", java.util.Arrays.copyOf(parts, cut));
                if (packages.contains(pkg)) {
                    boolean restIsTypeAndMember = cut == parts.length
                            || types.containsKey(parts[cut]) && (cut + 1 == parts.length
                            || cut + 2 == parts.length && (types.containsKey(parts[cut + 1])
                            || declares(parts[cut], parts[cut + 1])));
                    return restIsTypeAndMember ? null : name + " (no such type in " + pkg + ")";
                }
            }
            return name + " (no such package)";
        }
        String[] parts = name.split("[#.]", 2);
        if (parts[0].equals(parts[0].toUpperCase()) || ELSEWHERE.contains(parts[0])) {
            return null;
        }
        if (!types.containsKey(parts[0])) {
            return parts[0] + " (no such type)";
        }
        return parts.length == 2 && !declares(parts[0], parts[1]) ? name + " (no such member)" : null;
    }

    private boolean declares(String type, String member) {
        Pattern word = Pattern.compile("\\b" + Pattern.quote(member) + "\\b");
        return types.getOrDefault(type, List.of()).stream().anyMatch(code -> word.matcher(code).find());
    }

    private static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>();
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).forEach(docs::add);
        }
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.getFileName().toString().equals("package-info.java") && isSource(f)
                    && f.toString().contains("/src/main/")).forEach(docs::add);
        }
        return docs;
    }

    private static Set<String> publicTypes(Path dir) throws IOException {
        Set<String> names = new TreeSet<>();
        Pattern open = Pattern.compile("^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|record|enum|"
                + "@interface) (\\w+)", Pattern.MULTILINE);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = open.matcher(Files.readString(file));
                if (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    private static boolean isSource(Path file) {
        String path = file.toString();
        return path.endsWith(".java") && path.contains("/src/") && !path.contains("/target/")
                && !path.contains("/.git/");
    }
}
