package io.dlock.cli;

import io.dlock.LockClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;

/** {@code dlock status}: one snapshot of each lock, semaphore or latch. */
@Command(name = "status",
        header = "Show who holds locks (holders, hold counts, TTLs, queues), semaphores' permits and latches' counts.",
        description = {
            "",
            "Reads each NAME in one round trip (any lock kind: plain, fair, read-write, fenced; semaphores and "
                    + "count-down latches; written by dlock or Redisson).",
            "A holder is <client id>:<owner id>; for `dlock run` the owner id is the pid of the dlock process.",
            "Without --semaphore or --latch a name is read as a lock; a key that is no lock but a leased semaphore's "
                    + "count with permits out is shown as a semaphore, and one that is only an integer as a count "
                    + "(type semaphore_or_latch): Redis does not record whether that is a semaphore or a latch, so "
                    + "say which with --semaphore or --latch.",
            "--json prints an array with one object per name. A lock: name, type (none|lock|read_write), locked, "
                    + "mode (read|write|null), ttlMillis (-2 = not locked, -1 = no expiry), holders [clientId, "
                    + "ownerId, holdCount, write], waiters [clientId, ownerId, deadline], fencingToken. A semaphore: "
                    + "name, type semaphore, set, available, leased, expired, ttlMillis, permits [id, leaseMillis "
                    + "(-1 = no expiry)]. A latch: name, type latch, open, count, ttlMillis.",
            "A key that holds something else (for a lock: a string that is not an integer, or a hash whose fields "
                    + "are not a lock's) is reported as not a lock, semaphore or latch (JSON: name, type "
                    + "not_a_lock|not_a_semaphore|not_a_latch, error), without its contents, and dlock exits 1.",
        },
        parameterListHeading = "%nParameters:%n",
        optionListHeading = "%nOptions:%n")
final class StatusCommand extends BaseCommand {

    @Option(names = "--json", description = "Print JSON instead of text.")
    boolean json;

    @Option(names = "--semaphore", description = "Read every NAME as a semaphore (plain or leased): available "
            + "permits, leased permits with their ids and remaining leases.")
    boolean semaphore;

    @Option(names = "--latch", description = "Read every NAME as a count-down latch: its count.")
    boolean latch;

    @Parameters(paramLabel = "NAME", arity = "1..*", description = "The names of the locks, semaphores or latches.")
    List<String> names = new ArrayList<>();

    /** The kind that {@code --semaphore} / {@code --latch} ask for. */
    static ObjectView.Kind kind(boolean semaphore, boolean latch) {
        if (semaphore && latch) {
            throw CliException.usage("--semaphore and --latch exclude each other");
        }
        return semaphore ? ObjectView.Kind.SEMAPHORE : latch ? ObjectView.Kind.LATCH : ObjectView.Kind.AUTO;
    }

    @Override
    public Integer call() {
        ObjectView.Kind kind = kind(semaphore, latch);
        for (String name : names) {
            if (name.isBlank()) {
                throw CliException.usage("a name is blank");
            }
        }
        int code = ExitCodes.OK;
        try (LockClient client = connect()) {
            List<String> lines = new ArrayList<>();
            for (String name : names) {
                ObjectView view = ObjectView.read(client, name, kind);
                if (view.failed()) {
                    code = ExitCodes.FAILED;
                }
                lines.add(json ? "  " + view.json() : view.text());
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
