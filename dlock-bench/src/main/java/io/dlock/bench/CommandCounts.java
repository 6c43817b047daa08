package io.dlock.bench;

import java.util.Map;

/**
 * The Redis commands of one run ({@code INFO commandstats} deltas), split by who can have sent them.
 *
 * @param total        every command executed, script-internal ones included (the bench's own INFO left out)
 * @param scriptCalls  EVAL, EVALSHA, EVAL_RO, EVALSHA_RO: a script cannot call them, so the client sent each one
 * @param pubSub       SUBSCRIBE, UNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE: client-sent likewise
 * @param roundTrips   every command attributed to a client exactly ({@link ClientSent}): scriptCalls + pubSub + the
 *                     others; a lower bound of what the clients sent, since a command that a script of either
 *                     library may run is left out
 * @param byName       calls per command name ({@code commandstats} names, lower case), script-internal ones included
 */
record CommandCounts(long total, long scriptCalls, long pubSub, long roundTrips, Map<String, Long> byName) {
    static final CommandCounts NONE = new CommandCounts(0, 0, 0, 0, Map.of());

    CommandCounts {
        byName = Map.copyOf(byName);
    }
}
