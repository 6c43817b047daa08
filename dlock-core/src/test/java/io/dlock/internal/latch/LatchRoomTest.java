package io.dlock.internal.latch;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The latch room's shape (issue 45 #1): calls go one way, so no two of its classes name each other outside comments,
 * and the group that drives the awaits never names the API class.
 */
class LatchRoomTest {
    private static final Path ROOM = Path.of("src/main/java/io/dlock/internal/latch");
    private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    private static final Pattern STRINGS = Pattern.compile("\"(?:\\\\.|[^\"\\\\])*\"");

    @Test
    void noTwoClassesOfTheRoomNameEachOther() throws IOException {
        Map<String, String> code = code();
        List<String> pairs = new ArrayList<>();
        for (String a : code.keySet()) {
            for (String b : code.keySet()) {
                if (a.compareTo(b) < 0 && names(code.get(a), b) && names(code.get(b), a)) {
                    pairs.add(a + " <-> " + b);
                }
            }
        }
        assertThat(pairs).as("pairs of latch classes that name each other").isEmpty();
    }

    @Test
    void theGroupDoesNotNameTheApiClass() throws IOException {
        Map<String, String> code = code();
        assertThat(code).containsKeys("LatchGroup", "LatchGroups", "RedisCountDownLatch");
        assertThat(names(code.get("LatchGroup"), "RedisCountDownLatch")).isFalse();
        assertThat(names(code.get("LatchGroups"), "RedisCountDownLatch")).isFalse();
        assertThat(names(code.get("LatchAwait"), "LatchGroup")).as("an await calls no group").isFalse();
    }

    /** @return each class of the room, its code without comments and string literals */
    private static Map<String, String> code() throws IOException {
        Map<String, String> code = new TreeMap<>();
        try (Stream<Path> files = Files.list(ROOM)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                if (!name.equals("package-info")) {
                    String text = COMMENTS.matcher(Files.readString(file)).replaceAll(" ");
                    code.put(name, STRINGS.matcher(text).replaceAll("\"\""));
                }
            }
        }
        return code;
    }

    private static boolean names(String code, String className) {
        return Pattern.compile("\\b" + className + "\\b").matcher(code).find();
    }
}
