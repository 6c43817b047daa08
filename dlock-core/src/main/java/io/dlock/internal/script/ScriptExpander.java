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
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Turns a script resource into the text Redis runs: each {@code --#include <fragment>} line replaced by the
 * fragment {@code lib/<fragment>.lua} without its header (once per script), each {@code ${NAME}} by its constant.
 * The rules are those of {@link LuaScript} (see there); this class only applies them.
 *
 * <p>Thread-safe: each {@link #expand} call reads its script and keeps its state to itself; fragment texts are read
 * once and kept, since several scripts include each (resources do not change while the JVM runs). A script without
 * directives or placeholders comes out exactly as it was read. The work is one pass over each text, without regular
 * expressions: it runs once per script and JVM, on cold code, inside the first lock operation.
 */
final class ScriptExpander {

    /** Where {@link #onClasspath()} reads scripts ({@code <name>.lua}) and fragments ({@code lib/<name>.lua}). */
    static final String CLASSPATH_ROOT = "/io/dlock/scripts/";

    /** Every line starting with this (after any indentation) is a directive; only {@link #INCLUDE} is one. */
    private static final String DIRECTIVE = "--#";
    private static final String INCLUDE = "--#include ";
    private static final String PLACEHOLDER_START = "${";

    private final String root;
    private final Function<String, String> resources;
    private final Map<String, String> constants;
    /** Fragment texts by path, read once: each is included by several scripts. */
    private final Map<String, String> fragments = new ConcurrentHashMap<>();

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
        return expansion.out.toString();
    }

    /** The state of one script's expansion. */
    private final class Expansion {
        private final String script;
        private final StringBuilder out = new StringBuilder(8192);
        private boolean empty = true;
        /** Fragments already in {@link #out}, or being appended. */
        private final Set<String> included = new HashSet<>();
        /** Fragments being appended, outermost first: a directive naming one of them closes a cycle. */
        private final List<String> open = new ArrayList<>();

        Expansion(String script) {
            this.script = script;
        }

        /**
         * Appends {@code text} line by line, expanding its directives.
         *
         * @param header whether the text opens with a header to leave out: the comment lines before its first other
         *               line (a fragment's documentation, which stays in its file)
         */
        void append(String path, String text, boolean header) {
            String body = substitute(path, text);
            boolean inHeader = header;
            int lineNumber = 0;
            for (int start = 0; start <= body.length(); ) {
                int end = body.indexOf('\n', start);
                end = end < 0 ? body.length() : end;
                lineNumber++;
                boolean directive = body.startsWith(DIRECTIVE, skipIndentation(body, start, end));
                inHeader = inHeader && !directive && body.startsWith("--", start);
                if (directive) {
                    include(fragmentOf(body.substring(start, end), path, lineNumber), path, lineNumber);
                } else if (!inHeader) {
                    newLine().append(body, start, end);
                }
                start = end + 1;
            }
        }

        /** Starts a line of the output: lines are separated by '\n', as in the files. */
        private StringBuilder newLine() {
            if (!empty) {
                out.append('\n');
            }
            empty = false;
            return out;
        }

        /** The fragment a directive line names, if it is well formed. */
        private String fragmentOf(String line, String path, int lineNumber) {
            String name = line.startsWith(INCLUDE) ? line.substring(INCLUDE.length()).stripTrailing() : "";
            if (!isFragmentName(name)) {
                throw failure("malformed directive '" + line.strip() + "' in " + path + " line " + lineNumber
                        + ": the only directive is a line '--#include <fragment>' starting in column 1, the"
                        + " fragment named in lower case, digits and '_'");
            }
            return name;
        }

        private void include(String fragment, String from, int line) {
            String path = "lib/" + fragment + ".lua";
            if (open.contains(fragment)) {
                List<String> cycle = open.subList(open.indexOf(fragment), open.size());
                throw failure("include cycle: fragment '" + fragment + "' includes itself ("
                        + String.join(" -> ", cycle) + " -> " + fragment + ", at " + from + " line " + line + ")");
            }
            if (!included.add(fragment)) {
                newLine().append("-- fragment ").append(path).append(": included above");
                return;
            }
            String text = fragments.computeIfAbsent(path, resources);
            if (text == null) {
                throw failure("unknown fragment '" + fragment + "' included at " + from + " line " + line
                        + " (no resource " + root + path + ")");
            }
            open.add(fragment);
            newLine().append("-- fragment ").append(path);
            append(path, text.endsWith("\n") ? text.substring(0, text.length() - 1) : text, true);
            newLine().append("-- end of fragment ").append(path);
            open.remove(open.size() - 1);
        }

        private String substitute(String path, String text) {
            int placeholder = text.indexOf(PLACEHOLDER_START);
            if (placeholder < 0) {
                return text;
            }
            StringBuilder substituted = new StringBuilder(text.length());
            int done = 0;
            for (; placeholder >= 0; placeholder = text.indexOf(PLACEHOLDER_START, done)) {
                int close = text.indexOf('}', placeholder);
                String name = close < 0 ? null : text.substring(placeholder + PLACEHOLDER_START.length(), close);
                String value = name == null ? null : constants.get(name);
                if (value == null) {
                    String shown = close < 0 ? text.substring(placeholder) : text.substring(placeholder, close + 1);
                    throw failure("unknown placeholder '" + shown.lines().findFirst().orElse("") + "' in " + path
                            + " (known: " + new TreeSet<>(constants.keySet()) + ")");
                }
                substituted.append(text, done, placeholder).append(value);
                done = close + 1;
            }
            return substituted.append(text, done, text.length()).toString();
        }

        private IllegalStateException failure(String what) {
            return new IllegalStateException("cannot load script '" + script + "': " + what);
        }
    }

    /** The index of the first character of the line [start, end) that is not white space. */
    private static int skipIndentation(String text, int start, int end) {
        int i = start;
        while (i < end && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Lower case letter first, then lower case letters, digits and '_'. */
    private static boolean isFragmentName(String name) {
        if (name.isEmpty() || name.charAt(0) < 'a' || name.charAt(0) > 'z') {
            return false;
        }
        for (int i = 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private static String readResource(String resource) {
        try (InputStream in = ScriptExpander.class.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }
}
