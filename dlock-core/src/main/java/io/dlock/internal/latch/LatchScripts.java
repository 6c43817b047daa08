package io.dlock.internal.latch;

import io.dlock.internal.script.LuaScript;

/** The count-down latch's scripts (docs/protocol.md §11), loaded once per JVM. */
final class LatchScripts {
    static final LuaScript TRY_SET = LuaScript.load("latch_try_set");
    static final LuaScript COUNT_DOWN = LuaScript.load("latch_count_down");
    static final LuaScript STATE = LuaScript.load("latch_state");
    static final LuaScript DELETE = LuaScript.load("latch_delete");
    static final LuaScript OPENED = LuaScript.load("latch_opened");

    private LatchScripts() {
    }
}
