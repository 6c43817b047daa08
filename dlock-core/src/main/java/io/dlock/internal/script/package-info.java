/**
 * The Lua scripts and how they are sent. Not API; may change without notice.
 *
 * <p>Each script is a resource under {@code io/dlock/scripts/}, loaded once per JVM into a
 * {@link io.dlock.internal.script.LuaScript} with its SHA-1; {@link io.dlock.internal.script.Scripts} holds them all.
 * {@link io.dlock.internal.script.ScriptRunner} sends a script with {@code EVALSHA} and falls back on {@code EVAL}
 * when Redis answers {@code NOSCRIPT}. Script text is never built at run time. Every script opens with a header
 * listing its {@code KEYS}, {@code ARGV}, reply and invariant, and the section of {@code docs/protocol.md} it must
 * agree with for Redisson peers.
 *
 * <p>Code that several scripts share (the publish helper, the lease bound, the fair queue's stale-head cleanup, the
 * known-count rules, ...) lives once, as a fragment under {@code io/dlock/scripts/lib/}, which a script includes with
 * a line {@code --#include <fragment>}. {@link io.dlock.internal.script.LuaScript#load} expands the includes once,
 * when the script is loaded, and fills in placeholders such as the lease bound, taken from
 * {@link io.dlock.DistributedLock#MAX_LEASE}; the SHA-1 is that of the expanded text, which is what {@code EVAL}
 * sends. The rules (and what a fragment may do) are in {@link io.dlock.internal.script.LuaScript}'s class comment.
 */
package io.dlock.internal.script;
