package io.dlock.internal.script;

/** The scripts of the reentrant lock family, loaded once per JVM. */
public final class Scripts {
    public static final LuaScript LOCK_ACQUIRE = LuaScript.load("lock_acquire");
    public static final LuaScript LOCK_RELEASE = LuaScript.load("lock_release");
    public static final LuaScript LOCK_FORCE_RELEASE = LuaScript.load("lock_force_release");
    public static final LuaScript LOCK_RENEW = LuaScript.load("lock_renew");
    public static final LuaScript INSPECT = LuaScript.load("inspect");

    private Scripts() {
    }
}
