package io.dlock.internal.script;

import io.dlock.DistributedLock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** What Redis is sent: the expanded text and its SHA-1, for test scripts and for every shipped script. */
class LuaScriptTest {

    private static final Pattern LOCAL_FUNCTION = Pattern.compile("(?m)^local function ([a-z_]+)\\(");
    private static final Pattern FRAGMENT = Pattern.compile("(?m)^-- fragment lib/([a-z0-9_]+)\\.lua$");

    @Test
    void theShaIsThatOfTheExpandedTextWhichEvalSends() throws Exception {
        Map<String, String> files = Map.of(
                "s.lua", "--#include one\nreturn one() + ${LIMIT}\n",
                "lib/one.lua", "local function one() return 1 end\n");
        LuaScript script = LuaScript.load("s", new ScriptExpander("mem:", files::get, Map.of("LIMIT", "7")));

        assertThat(script.name()).isEqualTo("s");
        assertThat(script.text()).doesNotContain("--#include", "${").contains("local function one()", "+ 7");
        assertThat(script.sha()).isEqualTo(sha1(script.text())).isNotEqualTo(sha1(files.get("s.lua")));
        assertThat(script).hasToString("s(" + script.sha() + ")");
    }

    @Test
    void theLeaseBoundIsDistributedLockMaxLeaseInMilliseconds() {
        assertThat(ScriptConstants.VALUES).containsEntry("MAX_LEASE_MS",
                Long.toString(DistributedLock.MAX_LEASE.toMillis()));
        for (LuaScript script : List.of(Scripts.LOCK_ACQUIRE, Scripts.LOCK_HANDOFF, Scripts.FENCED_ACQUIRE,
                Scripts.FAIR_ACQUIRE, Scripts.RWLOCK_READ_ACQUIRE, Scripts.RWLOCK_WRITE_ACQUIRE, Scripts.LOCK_EXTEND,
                Scripts.RWLOCK_READ_EXTEND, Scripts.RWLOCK_WRITE_EXTEND)) {
            assertThat(script.text()).as(script.name())
                    .contains("lease_ms > " + DistributedLock.MAX_LEASE.toMillis() + " then")
                    .containsAnyOf("local refusal = invalid_lease(ARGV[", "local refusal = acquire_refused(ARGV[");
        }
    }

    @Test
    void everyShippedScriptIsExpandedCompletelyAndNamedByItsSha() throws Exception {
        for (LuaScript script : shippedScripts()) {
            String text = script.text();
            assertThat(text).as(script.name()).doesNotContain("--#", "${").startsWith("-- ");
            assertThat(script.sha()).as(script.name()).isEqualTo(sha1(text));
            // the lease bound comes from Java only: no resource spells it
            assertThat(resource(script.name() + ".lua")).as(script.name())
                    .doesNotContain(Long.toString(DistributedLock.MAX_LEASE.toMillis()));
        }
    }

    @Test
    void aShippedScriptWithoutDirectivesIsSentAsWritten() throws IOException {
        for (LuaScript script : List.of(Scripts.RWLOCK_STATE)) {
            assertThat(script.text()).as(script.name()).isEqualTo(resource(script.name() + ".lua"));
        }
    }

    @Test
    void everyShippedScriptDefinesEachFunctionOnceBeforeItIsCalled() {
        for (LuaScript script : shippedScripts()) {
            String code = code(script.text());
            List<String> defined = new ArrayList<>();
            Matcher definition = LOCAL_FUNCTION.matcher(code);
            while (definition.find()) {
                String function = definition.group(1);
                assertThat(defined).as("%s defines %s twice", script.name(), function).doesNotContain(function);
                defined.add(function);
                assertThat(code.substring(0, definition.start())).as("%s calls %s before defining it",
                        script.name(), function).doesNotContainPattern(call(function));
            }
            assertThat(defined.size()).as(script.name()).isLessThan(200);
        }
    }

    @Test
    void everyFragmentAScriptCallsIsIncludedOnce() throws IOException {
        Set<String> fragments = new TreeSet<>();
        for (LuaScript script : shippedScripts()) {
            Matcher marker = FRAGMENT.matcher(script.text());
            while (marker.find()) {
                fragments.add(marker.group(1));
            }
        }
        assertThat(fragments).isNotEmpty();
        for (String fragment : fragments) {
            assertThat(code(resource("lib/" + fragment + ".lua"))).as(fragment)
                    .containsOnlyOnce("local function " + fragment + "(");
            for (LuaScript script : shippedScripts()) {
                if (Pattern.compile(call(fragment)).matcher(code(script.text())).find()) {
                    assertThat(script.text()).as("%s uses %s", script.name(), fragment)
                            .containsOnlyOnce("-- fragment lib/" + fragment + ".lua\n")
                            .containsOnlyOnce("local function " + fragment + "(");
                }
            }
        }
    }

    /** Lua text without its comments (no script has "--" inside a string). */
    private static String code(String text) {
        return text.replaceAll("--[^\n]*", "");
    }

    /** A call of {@code function}, or its definition: the name as a whole word, then "(". */
    private static String call(String function) {
        return "(?<![A-Za-z0-9_.])" + function + "\\(";
    }

    private static List<LuaScript> shippedScripts() {
        List<LuaScript> scripts = new ArrayList<>();
        for (var field : Scripts.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == LuaScript.class) {
                try {
                    scripts.add((LuaScript) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        assertThat(scripts).hasSizeGreaterThanOrEqualTo(19);
        return scripts;
    }

    private static String resource(String path) throws IOException {
        try (InputStream in = LuaScript.class.getResourceAsStream(ScriptExpander.CLASSPATH_ROOT + path)) {
            assertThat(in).as(path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String sha1(String text) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
