package io.dlock.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script shipped as a resource under {@code io/dlock/scripts/}, with the SHA-1 that Redis knows it by.
 * Immutable; script text is never built at run time.
 */
public final class LuaScript {
    private final String name;
    private final String text;
    private final String sha;

    private LuaScript(String name, String text) {
        this.name = name;
        this.text = text;
        this.sha = sha1Hex(text);
    }

    /** Loads {@code io/dlock/scripts/<name>.lua}; fails fast when the resource is missing. */
    public static LuaScript load(String name) {
        String resource = "/io/dlock/scripts/" + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + resource);
            }
            return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }

    public String name() {
        return name;
    }

    public String text() {
        return text;
    }

    public String sha() {
        return sha;
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
        return name + "(" + sha + ")";
    }
}
