package io.dlock.internal.script;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Include expansion and placeholder substitution over in-memory resources, without a server. */
class ScriptExpanderTest {

    private final Map<String, String> files = new HashMap<>();
    private final Map<String, String> constants = new HashMap<>(Map.of("LIMIT", "42"));

    private ScriptExpander expander() {
        return new ScriptExpander("mem:", files::get, constants);
    }

    private String expand(String script) {
        return expander().expand(script);
    }

    @Test
    void anIncludeIsReplacedByItsFragmentBetweenMarkerLines() {
        files.put("s.lua", "-- s: header\n\n--#include one\n\nreturn one()\n");
        files.put("lib/one.lua", "local function one()\n    return 1\nend\n");

        assertThat(expand("s")).isEqualTo("""
                -- s: header

                -- fragment lib/one.lua
                local function one()
                    return 1
                end
                -- end of fragment lib/one.lua

                return one()
                """);
    }

    @Test
    void aFragmentsHeaderStaysInItsFileButItsOtherCommentsAreIncluded() {
        files.put("s.lua", "-- s: header, kept\n--#include one\nreturn one()");
        files.put("lib/one.lua", """
                -- one: returns 1
                --
                -- (its contract, in the fragment's file only)
                --#include two
                -- kept: not part of the header
                local function one()
                    -- kept too
                    return two()
                end
                """);
        files.put("lib/two.lua", "-- two: header\nlocal function two() return 1 end\n");

        assertThat(expand("s")).isEqualTo("""
                -- s: header, kept
                -- fragment lib/one.lua
                -- fragment lib/two.lua
                local function two() return 1 end
                -- end of fragment lib/two.lua
                -- kept: not part of the header
                local function one()
                    -- kept too
                    return two()
                end
                -- end of fragment lib/one.lua
                return one()""");
    }

    @Test
    void aScriptWithoutDirectivesOrPlaceholdersComesOutByteForByte() {
        String text = "-- plain\r\nlocal x = '--# not a directive: not at the start'\n\nreturn x";
        files.put("plain.lua", text);
        files.put("trailing.lua", text + "\n\n");

        assertThat(expand("plain")).isEqualTo(text);
        assertThat(expand("trailing")).isEqualTo(text + "\n\n");
    }

    @Test
    void fragmentsMayIncludeFragmentsWhichComeFirst() {
        files.put("s.lua", "--#include outer\nreturn outer()");
        files.put("lib/outer.lua", "--#include inner\nlocal function outer() return inner() end");
        files.put("lib/inner.lua", "local function inner() return 1 end");

        assertThat(expand("s")).isEqualTo("""
                -- fragment lib/outer.lua
                -- fragment lib/inner.lua
                local function inner() return 1 end
                -- end of fragment lib/inner.lua
                local function outer() return inner() end
                -- end of fragment lib/outer.lua
                return outer()""");
    }

    @Test
    void aFragmentIncludedTwiceIsIncludedOnceWhereItIsFirstNamed() {
        files.put("s.lua", "--#include shared\n--#include user\n--#include shared\nreturn user()");
        files.put("lib/user.lua", "--#include shared\nlocal function user() return shared() end");
        files.put("lib/shared.lua", "local function shared() return 1 end\n");

        String text = expand("s");

        assertThat(text).isEqualTo("""
                -- fragment lib/shared.lua
                local function shared() return 1 end
                -- end of fragment lib/shared.lua
                -- fragment lib/user.lua
                -- fragment lib/shared.lua: included above
                local function user() return shared() end
                -- end of fragment lib/user.lua
                -- fragment lib/shared.lua: included above
                return user()""");
        assertThat(text.split("local function shared", -1)).hasSize(2);
    }

    @Test
    void anUnknownFragmentFailsNamingTheScriptAndTheFragment() {
        files.put("s.lua", "-- header\n--#include notfy\nreturn 1");

        assertThatThrownBy(() -> expand("s")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("script 's'").hasMessageContaining("unknown fragment 'notfy'")
                .hasMessageContaining("s.lua line 2").hasMessageContaining("mem:lib/notfy.lua");
    }

    @Test
    void anUnknownFragmentDeeperDownNamesTheFragmentThatIncludesIt() {
        files.put("s.lua", "--#include outer\nreturn 1");
        files.put("lib/outer.lua", "local x = 1\n--#include missing");

        assertThatThrownBy(() -> expand("s")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("script 's'").hasMessageContaining("'missing'")
                .hasMessageContaining("lib/outer.lua line 2");
    }

    @Test
    void anIncludeCycleFailsNamingTheScriptAndEveryFragmentOfTheCycle() {
        files.put("s.lua", "--#include a\nreturn 1");
        files.put("lib/a.lua", "--#include b\n");
        files.put("lib/b.lua", "--#include c\n");
        files.put("lib/c.lua", "--#include a\n");

        assertThatThrownBy(() -> expand("s")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("script 's'").hasMessageContaining("include cycle")
                .hasMessageContaining("a -> b -> c -> a").hasMessageContaining("lib/c.lua line 1");
    }

    @Test
    void aFragmentIncludingItselfIsACycle() {
        files.put("s.lua", "--#include self\nreturn 1");
        files.put("lib/self.lua", "local y = 2\n--#include self\n");

        assertThatThrownBy(() -> expand("s")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("script 's'").hasMessageContaining("fragment 'self' includes itself")
                .hasMessageContaining("self -> self");
    }

    @Test
    void everyOtherDirectiveLineIsRefused() {
        for (String line : new String[] {"  --#include indented", "--#include Upper", "--#include two words",
                "--#inclde typo", "--#include", "--#define X 1"}) {
            files.put("s.lua", "local a = 1\n" + line + "\nreturn a");
            files.put("lib/indented.lua", "");
            assertThatThrownBy(() -> expand("s")).as(line).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("script 's'").hasMessageContaining("malformed directive")
                    .hasMessageContaining("s.lua line 2");
        }
    }

    @Test
    void placeholdersAreReplacedInScriptsAndFragments() {
        files.put("s.lua", "--#include guard\nif ARGV[1] > ${LIMIT} then return guard() end");
        files.put("lib/guard.lua", "local function guard() return ${LIMIT} + ${LIMIT} end");

        assertThat(expand("s")).isEqualTo("""
                -- fragment lib/guard.lua
                local function guard() return 42 + 42 end
                -- end of fragment lib/guard.lua
                if ARGV[1] > 42 then return guard() end""");
    }

    @Test
    void aReplacementIsInsertedLiterally() {
        constants.put("ODD", "$1 \\ ${LIMIT}");
        files.put("s.lua", "return '${ODD}'");

        assertThat(expand("s")).isEqualTo("return '$1 \\ ${LIMIT}'");
    }

    @Test
    void anUnknownPlaceholderFailsNamingTheScriptAndTheFile() {
        files.put("s.lua", "--#include guard\nreturn 1");
        files.put("lib/guard.lua", "local max = ${MAX_LEASE}");

        assertThatThrownBy(() -> expand("s")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("script 's'").hasMessageContaining("'${MAX_LEASE}'")
                .hasMessageContaining("lib/guard.lua").hasMessageContaining("LIMIT");
    }

    @Test
    void anUnterminatedPlaceholderFails() {
        files.put("s.lua", "local a = 1\nreturn ${LIMIT\n");

        assertThatThrownBy(() -> expand("s")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("script 's'").hasMessageContaining("unknown placeholder '${LIMIT'")
                .hasMessageContaining("in s.lua");
    }

    @Test
    void aMissingScriptFails() {
        assertThatThrownBy(() -> expand("absent")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("missing script resource mem:absent.lua");
    }

    @Test
    void eachExpansionStartsAfresh() {
        files.put("s.lua", "--#include one\nreturn one()");
        files.put("lib/one.lua", "local function one() return 1 end");
        ScriptExpander expander = expander();

        assertThat(expander.expand("s")).isEqualTo(expander.expand("s")).contains("local function one()");
    }
}
