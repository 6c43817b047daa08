package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.NotALockException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;

/** {@code dlock status}: one snapshot of each lock. */
@Command(name = "status",
        header = "Show who holds locks, their hold counts, TTLs and queues.",
        description = {
            "",
            "Reads each LOCK in one round trip (any kind: plain, fair, read-write; written by dlock or Redisson).",
            "A holder is <client id>:<owner id>; for `dlock run` the owner id is the pid of the dlock process.",
            "--json prints an array with one object per lock: name, type (none|lock|read_write), locked, mode "
                    + "(read|write|null), ttlMillis (-2 = not locked, -1 = no expiry), holders [clientId, "
                    + "ownerId, holdCount, write], waiters [clientId, ownerId, deadline], fencingToken.",
            "A key that holds something else (a string, or a hash whose fields are not a lock's) is reported as "
                    + "not a lock (JSON: name, type not_a_lock, error), without its contents, and dlock exits 1.",
        },
        parameterListHeading = "%nParameters:%n",
        optionListHeading = "%nOptions:%n")
final class StatusCommand extends BaseCommand {

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Parameters(paramLabel = "LOCK", arity = "1..*", description = "The locks' names.")
    List<String> names = new ArrayList<>();

    @Override
    public Integer call() {
        for (String name : names) {
            if (name.isBlank()) {
                throw CliException.usage("a lock name is blank");
            }
        }
        int code = ExitCodes.OK;
        try (LockClient client = connect()) {
            List<LockInfo> infos = new ArrayList<>();
            List<String> lines = new ArrayList<>();
            for (String name : names) {
                try {
                    LockInfo info = client.inspect(name);
                    infos.add(info);
                    lines.add(json ? "  " + LockInfoFormat.json(info) : LockInfoFormat.text(info));
                } catch (NotALockException e) {
                    // named by its type only: never a field or a value of it (they may be business data)
                    code = ExitCodes.FAILED;
                    lines.add(json
                            ? "  {\"name\":" + Json.string(name) + ",\"type\":\"not_a_lock\",\"error\":"
                                    + Json.string(e.getMessage()) + "}"
                            : name + "\n  state    not a lock\n  error    " + e.getMessage() + "\n");
                }
            }
            if (json) {
                out().println(lines.isEmpty() ? "[]" : String.join(",\n", lines).transform(s -> "[\n" + s + "\n]"));
            } else {
                out().print(String.join("\n", lines));
            }
            out().flush();
        }
        return code;
    }
}
