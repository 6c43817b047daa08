package io.dlock.bench;

import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Attributes the commands of a run to the clients where that is exact. A command's calls count as client-sent
 * when no script can have run it: either Redis forbids it in scripts (its {@code noscript} flag: EVAL*, the
 * (un)subscribe family, HELLO, CLIENT *, SCRIPT *, ...), or neither library's scripts ever call it
 * ({@link InScriptCommands}, e.g. PING). Any other command (DEL, GET, SET, HGET, ...) may have been sent by a client
 * or run by a script: its calls are counted in the total only.
 */
final class ClientSent {
    static final Set<String> SCRIPT_CALLS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro");
    static final Set<String> PUB_SUB = Set.of("subscribe", "unsubscribe", "ssubscribe", "sunsubscribe",
            "psubscribe", "punsubscribe");

    private final Set<String> inScripts;
    private final Predicate<String> noscript;

    /**
     * @param inScripts names a script of either library may run (lower case, no subcommand)
     * @param noscript  whether Redis forbids a command (commandstats name, e.g. {@code client|setname}) in scripts
     */
    ClientSent(Set<String> inScripts, Predicate<String> noscript) {
        this.inScripts = inScripts;
        this.noscript = noscript;
    }

    /** @param calls calls per commandstats name during the run (the bench's own INFO already left out) */
    CommandCounts count(Map<String, Long> calls) {
        long total = 0;
        long scripts = 0;
        long pubSub = 0;
        long roundTrips = 0;
        for (Map.Entry<String, Long> e : calls.entrySet()) {
            String command = e.getKey();
            long n = e.getValue();
            if (n == 0) {
                continue;
            }
            total += n;
            if (SCRIPT_CALLS.contains(command)) {
                scripts += n;
            } else if (PUB_SUB.contains(command)) {
                pubSub += n;
            } else if (!clientOnly(command)) {
                continue;
            }
            roundTrips += n;
        }
        Map<String, Long> byName = new java.util.HashMap<>(calls);
        byName.values().removeIf(n -> n == 0);
        return new CommandCounts(total, scripts, pubSub, roundTrips, byName);
    }

    private boolean clientOnly(String command) {
        int bar = command.indexOf('|');
        String base = bar < 0 ? command : command.substring(0, bar);
        return !inScripts.contains(base) || noscript.test(command);
    }
}
