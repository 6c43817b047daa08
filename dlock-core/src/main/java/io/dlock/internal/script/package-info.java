/**
 * The Lua scripts and how they are sent. Not API; may change without notice.
 *
 * <p>Each script is a resource under {@code io/dlock/scripts/}, loaded once per JVM into a
 * {@link io.dlock.internal.script.LuaScript} with its SHA-1; {@link io.dlock.internal.script.Scripts} holds them all.
 * {@link io.dlock.internal.script.ScriptRunner} sends a script with {@code EVALSHA} and falls back on {@code EVAL}
 * when Redis answers {@code NOSCRIPT}. Script text is never built at run time. Every script opens with a header
 * listing its {@code KEYS}, {@code ARGV}, reply and invariant, and the section of {@code docs/protocol.md} it must
 * agree with for Redisson peers.
 */
package io.dlock.internal.script;
