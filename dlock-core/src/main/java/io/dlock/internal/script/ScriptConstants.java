package io.dlock.internal.script;

import io.dlock.DistributedLock;

import java.util.Map;

/**
 * The values {@link LuaScript#load} writes into script text where a placeholder {@code ${NAME}} stands, so that a
 * bound the client checks and the same bound a script checks come from one Java definition, never from a literal
 * that agrees with it by convention.
 *
 * <ul>
 *   <li>{@code MAX_LEASE_MS}: {@link DistributedLock#MAX_LEASE} in milliseconds, as a decimal integer
 *       ({@code 3153600000000} for 36,500 days); the upper bound of {@code lib/invalid_lease.lua}.</li>
 * </ul>
 *
 * <p>Every value is a plain decimal literal, which Lua reads exactly (well below 2^53). A placeholder that is not
 * listed here fails the script's load.
 */
final class ScriptConstants {

    /** Placeholder name (without {@code ${}}) to the text that replaces it; immutable. */
    static final Map<String, String> VALUES = Map.of(
            "MAX_LEASE_MS", Long.toString(DistributedLock.MAX_LEASE.toMillis()));

    private ScriptConstants() {
    }
}
