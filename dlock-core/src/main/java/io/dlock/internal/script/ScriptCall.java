package io.dlock.internal.script;

import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * One script call described, not sent: the script, how its reply reads, its keys and its arguments. A lock kind's
 * protocol says what to send; the one class that drives every kind sends it ({@link #send}), so the rules around a
 * call (lost replies, grant records, errors) are written once, there.
 *
 * @param sentByText sent by its text ({@link ScriptRunner#runByText}): for clean-ups that must run in one command whatever
 *               Redis has cached
 */
public record ScriptCall(LuaScript script, ScriptOutputType type, String[] keys, String[] args, boolean sentByText) {

    /** @return a call sent by SHA, its reply read as nil-or-integer */
    public static ScriptCall integer(LuaScript script, String[] keys, String... args) {
        return new ScriptCall(script, ScriptOutputType.INTEGER, keys, args, false);
    }

    /** @return a call sent by SHA, its reply read as a list */
    public static ScriptCall multi(LuaScript script, String[] keys, String... args) {
        return new ScriptCall(script, ScriptOutputType.MULTI, keys, args, false);
    }

    /** @return this call, sent by its text */
    public ScriptCall byText() {
        return new ScriptCall(script, type, keys, args, true);
    }

    /** Sends the call. Never blocks; the future completes on an I/O thread. */
    public <T> CompletableFuture<T> send(ScriptRunner scripts) {
        return sentByText ? scripts.runByText(script, type, keys, args) : scripts.run(script, type, keys, args);
    }
}
