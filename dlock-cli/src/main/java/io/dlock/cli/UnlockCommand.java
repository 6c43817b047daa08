package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.NotALockException;
import io.dlock.SemaphoreInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dlock unlock --force}: removes a lock whoever holds it, or one leased permit of a semaphore. */
@Command(name = "unlock",
        header = "Force-release a lock (or a leased permit), whoever holds it.",
        description = {
            "",
            "Removes LOCK and wakes its waiters, and prints who held it. Holders learn of it at their next renewal "
                    + "(a `dlock run` holding it then stops its command: exit 76). --force is required: dlock "
                    + "cannot release a hold of another process any other way.",
            "Only a lock is removed: a key that holds anything else (a string, or a hash whose fields are not a "
                    + "lock's, such as a shopping cart) is left as it is, and dlock exits 1.",
            "With --permit ID, NAME is a leased semaphore and only that permit is given back (ids as `dlock status "
                    + "--semaphore NAME` lists them); its holder learns of it at its next renewal. A permit whose lease ended but "
                    + "that was not given back yet is given back too (and said so); an id the semaphore does not "
                    + "hold exits 1.",
        },
        parameterListHeading = "%nParameters:%n",
        optionListHeading = "%nOptions:%n")
final class UnlockCommand extends BaseCommand {

    @Option(names = "--force", description = "Really remove the lock, whoever holds it.")
    boolean force;

    @Option(names = "--permit", paramLabel = "ID",
            description = "Give back the leased permit ID of the semaphore NAME instead of removing a lock.")
    String permit;

    @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name (the semaphore's with --permit).")
    String name;

    @Override
    public Integer call() {
        if (!force) {
            throw CliException.usage("unlock needs --force: it removes the lock whoever holds it");
        }
        if (name.isBlank()) {
            throw CliException.usage("the lock name is blank");
        }
        if (permit != null && permit.isBlank()) {
            throw CliException.usage("the permit id is blank");
        }
        try (LockClient client = connect()) {
            if (permit != null) {
                return releasePermit(client);
            }
            LockInfo before;
            try {
                before = client.inspect(name);
                if (before.type() == LockInfo.Type.NONE) {
                    err().println("dlock: lock '" + name + "' was not held");
                    return ExitCodes.FAILED;
                }
                if (!lockOfKind(client, before).forceUnlock()) {
                    err().println("dlock: lock '" + name + "' was not held (released meanwhile)");
                    return ExitCodes.FAILED;
                }
            } catch (NotALockException e) {
                // inspect, or the force script itself if the key changed in between: nothing was removed
                return refused(e);
            }
            String kind = before.type() == LockInfo.Type.READ_WRITE
                    ? (before.mode() == LockInfo.Mode.WRITE ? " (write)" : " (read)") : "";
            out().println("released lock '" + name + "'" + kind + ", held by " + LockInfoFormat.holders(before)
                    + ", ttl was " + LockInfoFormat.ttl(before.ttlMillis()));
            out().flush();
            return ExitCodes.OK;
        }
    }

    /** Reports that the name holds something else (left as it was): exit 1. */
    private int refused(NotALockException e) {
        String message = e.getMessage();
        err().println("dlock: " + message + (message.endsWith("nothing was changed") ? "" : "; nothing was changed"));
        return ExitCodes.FAILED;
    }

    /**
     * Gives back one leased permit by its id, as its holder's release would (Redisson's {@code release(id)} too): the
     * holder loses it at its next renewal. A permit whose lease had ended but that nobody had reclaimed yet is given
     * back too (the count goes up by one): that is a success, said as such; only an id that is not in the permit
     * table (never acquired, released already, or reclaimed) fails, exit 1.
     */
    private int releasePermit(LockClient client) {
        boolean wasValid;
        try {
            // true: released while its lease ran; false: released after its lease ended; IAE: no such permit
            wasValid = client.getLeasedSemaphore(name).release(permit);
        } catch (IllegalArgumentException e) {
            err().println("dlock: " + e.getMessage()); // no such permit held (names the semaphore and the id)
            return ExitCodes.FAILED;
        } catch (NotALockException e) {
            return refused(e);
        }
        SemaphoreInfo after = client.inspectSemaphore(name);
        out().println("released permit " + permit + " of semaphore '" + name + "'"
                + (wasValid ? "" : " (its lease had ended; it was not reclaimed yet)") + ", "
                + after.availablePermits() + " available now");
        out().flush();
        return ExitCodes.OK;
    }

    /**
     * The lock object whose force-release publishes on the channel the waiters listen to; the plain lock (which
     * deletes the key, waiters then wake at the latest when their wait times out) while a kind is not available.
     */
    private static DistributedLock lockOfKind(LockClient client, LockInfo info) {
        try {
            if (info.type() == LockInfo.Type.READ_WRITE) {
                // each side removes only a lock held in its own mode
                return info.mode() == LockInfo.Mode.READ ? client.getReadWriteLock(info.name()).readLock()
                        : client.getReadWriteLock(info.name()).writeLock();
            }
            if (!info.waiters().isEmpty()) {
                return client.getFairLock(info.name());
            }
        } catch (UnsupportedOperationException e) {
            // fall through: a plain force-release still deletes the key
        }
        return client.getLock(info.name());
    }
}
