package io.dlock.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a script resource into the text Redis runs: each {@code --#include <fragment>} line replaced by the
 * fragment {@code lib/<fragment>.lua} without its header (once per script), each {@code ${NAME}} by its constant.
 * The rules are those of {@link LuaScript} (see there); this class only applies them.
 *
 * <p>Immutable and thread-safe: every {@link #expand} call reads its resources afresh and keeps its state to itself.
 * A script without directives or placeholders comes out exactly as it was read.
 */
final class ScriptExpander {

    /** Where {@link #onClasspath()} reads scripts ({@code <name>.lua}) and fragments ({@code lib/<name>.lua}). */
    static final String CLASSPATH_ROOT = "/io/dlock/scripts/";

    /** Every line starting with this (after any indentation) is a directive; only {@link #INCLUDE} is one. */
    private static final String DIRECTIVE = "--#";
    private static final Pattern INCLUDE = Pattern.compile("--#include ([a-z][a-z0-9_]*)");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");

    private final String root;
    private final Function<String, String> resources;
    private final Map<String, String> constants;

    /**
     * @param root      where the resources live, for messages only
     * @param resources reads a resource by its path below {@code root} ({@code lock_release.lua},
     *                  {@code lib/notify.lua}); null when there is none
     * @param constants placeholder name (without {@code ${}}) to its replacement
     */
    ScriptExpander(String root, Function<String, String> resources, Map<String, String> constants) {
        this.root = root;
        this.resources = resources;
        this.constants = Map.copyOf(constants);
    }

    /** Reads {@link #CLASSPATH_ROOT} through this class's loader and substitutes {@link ScriptConstants#VALUES}. */
    static ScriptExpander onClasspath() {
        return new ScriptExpander(CLASSPATH_ROOT, path -> readResource(CLASSPATH_ROOT + path),
                ScriptConstants.VALUES);
    }

    /**
     * @param script the script's name, without {@code .lua}
     * @return the expanded text
     * @throws IllegalStateException when the script or a fragment it includes is missing, an include forms a cycle,
     *                               a directive is malformed or a placeholder unknown; the message names the script
     *                               and the file at fault
     */
    String expand(String script) {
        String path = script + ".lua";
        String text = resources.apply(path);
        if (text == null) {
            throw new IllegalStateException("missing script resource " + root + path);
        }
        Expansion expansion = new Expansion(script);
        expansion.append(path, text, false);
        return String.join("\n", expansion.lines);
    }

    /** The state of one script's expansion. */
    private final class Expansion {
        private final String script;
        private final List<String> lines = new ArrayList<>();
        /** Fragments already in {@link #lines}, or being appended. */
        private final Set<String> included = new HashSet<>();
        /** Fragments being appended, outermost first: a directive naming one of them closes a cycle. */
        private final List<String> open = new ArrayList<>();

        Expansion(String script) {
            this.script = script;
        }

        /**
         * @param header whether the text opens with a header to leave out: the comment lines before its first other
         *               line (a fragment's documentation, which stays in its file)
         */
        void append(String path, String text, boolean header) {
            String[] fileLines = substitute(path, text).split("\n", -1);
            boolean inHeader = header;
            for (int i = 0; i < fileLines.length; i++) {
                String line = fileLines[i];
                inHeader = inHeader && line.startsWith("--") && !isDirective(line);
                if (inHeader) {
                    continue;
                }
                if (!isDirective(line)) {
                    lines.add(line);
                    continue;
                }
                Matcher include = INCLUDE.matcher(line.stripTrailing());
                if (!include.matches()) {
                    throw failure("malformed directive '" + line.strip() + "' in " + path + " line " + (i + 1)
                            + ": the only directive is a line '--#include <fragment>' starting in column 1, the"
                            + " fragment named in lower case, digits and '_'");
                }
                include(include.group(1), path, i + 1);
            }
        }

        private void include(String fragment, String from, int line) {
            String path = fragmentPath(fragment);
            if (open.contains(fragment)) {
                List<String> cycle = open.subList(open.indexOf(fragment), open.size());
                throw failure("include cycle: fragment '" + fragment + "' includes itself ("
                        + String.join(" -> ", cycle) + " -> " + fragment + ", at " + from + " line " + line + ")");
            }
            if (!included.add(fragment)) {
                lines.add("-- fragment " + path + ": included above");
                return;
            }
            String text = resources.apply(path);
            if (text == null) {
                throw failure("unknown fragment '" + fragment + "' included at " + from + " line " + line
                        + " (no resource " + root + path + ")");
            }
            open.add(fragment);
            lines.add("-- fragment " + path);
            append(path, text.endsWith("\n") ? text.substring(0, text.length() - 1) : text, true);
            lines.add("-- end of fragment " + path);
            open.remove(open.size() - 1);
        }

        private String substitute(String path, String text) {
            if (!text.contains("${")) {
                return text;
            }
            Matcher placeholder = PLACEHOLDER.matcher(text);
            StringBuilder out = new StringBuilder(text.length());
            while (placeholder.find()) {
                String value = constants.get(placeholder.group(1));
                if (value == null) {
                    throw failure("unknown placeholder '" + placeholder.group() + "' in " + path + " (known: "
                            + new TreeSet<>(constants.keySet()) + ")");
                }
                placeholder.appendReplacement(out, Matcher.quoteReplacement(value));
            }
            placeholder.appendTail(out);
            return out.toString();
        }

        private IllegalStateException failure(String what) {
            return new IllegalStateException("cannot load script '" + script + "': " + what);
        }
    }

    /** Whether {@code line}, after any indentation, starts with {@link #DIRECTIVE} (without copying it). */
    private static boolean isDirective(String line) {
        int start = 0;
        while (start < line.length() && Character.isWhitespace(line.charAt(start))) {
            start++;
        }
        return line.startsWith(DIRECTIVE, start);
    }

    private static String fragmentPath(String fragment) {
        return "lib/" + fragment + ".lua";
    }

    private static String readResource(String resource) {
        try (InputStream in = ScriptExpander.class.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }
}
