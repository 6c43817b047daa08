package io.dlock.internal.script;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script shipped as a resource under {@code io/dlock/scripts/}, with the SHA-1 that Redis knows it by.
 * Immutable and thread-safe; script text is never built at run time: it is fixed when the script is loaded (once
 * per JVM, by {@link Scripts}).
 *
 * <h2>Shared fragments</h2>
 * Code that several scripts need (the publish helper, the lease bound, the fair queue's stale-head cleanup, ...)
 * is written once, as a fragment {@code io/dlock/scripts/lib/<fragment>.lua}, and a script names each fragment it
 * uses with a line
 * <pre>{@code --#include notify}</pre>
 * {@link #load} expands the script before anything else sees it:
 * <ul>
 *   <li>A directive is a whole line starting in column 1; the fragment's name is lower case, digits and {@code _}.
 *       It stands at the top level of its file (outside any function or block) before the first use of what the
 *       fragment defines: the fragment's text takes its place, between the comment lines
 *       {@code -- fragment lib/notify.lua} and {@code -- end of fragment lib/notify.lua}, without the fragment's
 *       header (its leading comment lines), which documents it in its own file.</li>
 *   <li>Fragments may include fragments. A fragment already included into the script (directly or through another
 *       fragment) is not included again: the later directive becomes the comment
 *       {@code -- fragment lib/notify.lua: included above}.</li>
 *   <li>A placeholder {@code ${NAME}}, in a script or a fragment, is replaced by the value {@link ScriptConstants}
 *       gives it: {@code ${MAX_LEASE_MS}} is {@link io.dlock.DistributedLock#MAX_LEASE} in milliseconds, so the
 *       lease bound the scripts check is the one the client checks.</li>
 *   <li>An unknown fragment, an include cycle, an unknown placeholder, or any other line starting with
 *       {@code --#} fails the load with an {@link IllegalStateException} naming the script and the file at fault;
 *       since {@link Scripts} loads every script together when the class is first used, a broken resource fails
 *       before any script is sent (and fails the unit tests), never one script call among others.</li>
 * </ul>
 * {@link #text()} and {@link #sha()} are those of the expanded text, so {@code EVALSHA} names exactly what
 * {@code EVAL} sends. A script without directives or placeholders is sent byte for byte as written. The resource
 * files themselves are therefore not what Redis runs: run {@link #text()}.
 *
 * <p>A fragment only defines {@code local function}s (one, named like the fragment, unless it says otherwise) and
 * runs nothing by itself, so including it once, before its first use, is always right. It reaches keys only
 * through its arguments and opens with a header: what it defines, its arguments and result, the invariant it keeps
 * and which part of {@code docs/protocol.md} it follows. Fragments change the layout of a script's text, never its
 * keys, arguments, replies, channels or messages, which each script's own header states. Each defined function is
 * one more local of the script's main chunk, of which Lua allows 200.
 */
public final class LuaScript {
    private static final ScriptExpander CLASSPATH = ScriptExpander.onClasspath();

    private final String name;
    private final String text;
    /** {@link #sha()}, computed on first use: a process sends only some of the scripts, and hashing is cold work. */
    private volatile String sha;

    private LuaScript(String name, String text) {
        this.name = name;
        this.text = text;
    }

    /**
     * Loads {@code io/dlock/scripts/<name>.lua} and expands it (see the class comment).
     *
     * @throws IllegalStateException when the script or one of its fragments is missing, or the expansion fails
     */
    public static LuaScript load(String name) {
        return load(name, CLASSPATH);
    }

    /** Loads {@code name} through {@code expander}: for tests of the expansion. */
    static LuaScript load(String name, ScriptExpander expander) {
        return new LuaScript(name, expander.expand(name));
    }

    public String name() {
        return name;
    }

    /** The expanded text: what {@code EVAL} sends. */
    public String text() {
        return text;
    }

    /** The SHA-1 of {@link #text()}, in lower-case hex: what {@code EVALSHA} names. */
    public String sha() {
        String known = sha;
        if (known == null) {
            // two threads may both compute it: the same value, so either write is right
            known = sha1Hex(text);
            sha = known;
        }
        return known;
    }

    private static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 unavailable", e);
        }
    }

    @Override
    public String toString() {
        return name + "(" + sha() + ")";
    }
}
