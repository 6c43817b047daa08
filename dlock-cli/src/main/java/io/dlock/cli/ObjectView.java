package io.dlock.cli;

import io.dlock.LatchInfo;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.NotALockException;
import io.dlock.SemaphoreInfo;

import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What {@code dlock status} and {@code dlock watch} show of one name: a lock, a semaphore, a count-down latch, a count
 * that may be either of the last two, or a key that is none of what was asked for. {@link #read} reads it as the
 * {@link Kind} asked for.
 */
sealed interface ObjectView {

    /** How a name is read: as the kind its keys show ({@code AUTO}), or as the kind given on the command line. */
    enum Kind {
        /**
         * A lock; failing that (the key is a string or another type) a semaphore: a name with a permit table is a
         * leased semaphore, a bare integer is a count whose kind Redis does not record ({@link Count}).
         */
        AUTO,
        /** {@code --semaphore}: a semaphore, plain or leased. */
        SEMAPHORE,
        /** {@code --latch}: a count-down latch. */
        LATCH
    }

    /** The multi-line block of {@code status}, ending with a newline. */
    String text();

    /** One JSON object; see dlock-cli/README.md for the fields. */
    String json();

    /** One line for {@code watch}: {@code NAME: ...}. */
    String summary();

    /** What {@code watch} compares to decide whether to print a new line: everything but the TTLs. */
    String signature();

    /** Whether the name holds something that is not what was asked for (status exits 1). */
    default boolean failed() {
        return false;
    }

    /**
     * Reads {@code name}, one round trip (two in {@code AUTO} mode for a key that is not a lock).
     *
     * @throws io.dlock.LockException when Redis fails (a key of the wrong kind is a {@link Refused} view instead)
     */
    static ObjectView read(LockClient client, String name, Kind kind) {
        switch (kind) {
            case SEMAPHORE:
                try {
                    return new Semaphore(client.inspectSemaphore(name));
                } catch (NotALockException e) {
                    return new Refused(name, "semaphore", e.getMessage());
                }
            case LATCH:
                try {
                    return new Latch(client.inspectCountDownLatch(name));
                } catch (NotALockException e) {
                    return new Refused(name, "latch", e.getMessage());
                }
            default:
                NotALockException notALock;
                try {
                    return new Lock(client.inspect(name));
                } catch (NotALockException e) {
                    notALock = e;
                }
                SemaphoreInfo info;
                try {
                    info = client.inspectSemaphore(name);
                } catch (NotALockException | IllegalArgumentException e) {
                    return new Refused(name, "lock", notALock.getMessage());
                }
                return info.hasLeasedPermits() ? new Semaphore(info) : new Count(info);
        }
    }

    /** A lock of any kind, or a free name ({@link LockInfoFormat}). */
    record Lock(LockInfo info) implements ObjectView {
        @Override
        public String text() {
            return LockInfoFormat.text(info);
        }

        @Override
        public String json() {
            return LockInfoFormat.json(info);
        }

        @Override
        public String summary() {
            return LockInfoFormat.summary(info);
        }

        @Override
        public String signature() {
            return LockInfoFormat.signature(info);
        }
    }

    /** A semaphore: available permits, leased permits with ids and leases, expired ones not yet given back. */
    record Semaphore(SemaphoreInfo info) implements ObjectView {
        @Override
        public String text() {
            StringBuilder out = new StringBuilder(info.name()).append('\n');
            if (!info.isSet() && !info.hasLeasedPermits()) {
                return out.append("  state    semaphore, not set (no permits)\n").toString();
            }
            out.append("  state    semaphore, ").append(permits(info.availablePermits())).append(" available, ")
                    .append(info.permits().size()).append(" leased\n");
            for (SemaphoreInfo.PermitLease p : info.permits()) {
                out.append("  permit   ").append(p.id()).append("  ").append(lease(p)).append('\n');
            }
            if (info.expiredPermits() > 0) {
                out.append("  expired  ").append(info.expiredPermits())
                        .append(" (lease ended; given back by the next operation, counted as available)\n");
            }
            return out.append("  ttl      ").append(LockInfoFormat.ttl(info.ttlMillis())).append('\n').toString();
        }

        @Override
        public String json() {
            StringBuilder out = new StringBuilder("{\"name\":").append(Json.string(info.name()))
                    .append(",\"type\":\"semaphore\",\"set\":").append(info.isSet())
                    .append(",\"available\":").append(info.availablePermits())
                    .append(",\"leased\":").append(info.permits().size())
                    .append(",\"expired\":").append(info.expiredPermits())
                    .append(",\"ttlMillis\":").append(info.ttlMillis())
                    .append(",\"permits\":[");
            for (int i = 0; i < info.permits().size(); i++) {
                SemaphoreInfo.PermitLease p = info.permits().get(i);
                out.append(i == 0 ? "" : ",").append("{\"id\":").append(Json.string(p.id()))
                        .append(",\"leaseMillis\":").append(p.leaseMillis()).append('}');
            }
            return out.append("]}").toString();
        }

        @Override
        public String summary() {
            if (!info.isSet() && !info.hasLeasedPermits()) {
                return info.name() + ": semaphore not set";
            }
            String leased = info.permits().stream().map(p -> p.id() + " (" + lease(p) + ")")
                    .collect(Collectors.joining(", "));
            return info.name() + ": " + info.availablePermits() + " available, " + info.permits().size() + " leased"
                    + (leased.isEmpty() ? "" : ": " + leased)
                    + (info.expiredPermits() > 0 ? ", " + info.expiredPermits() + " expired" : "");
        }

        @Override
        public String signature() {
            return "semaphore|" + info.isSet() + "|" + info.availablePermits() + "|" + info.expiredPermits() + "|"
                    + info.permits().stream().map(SemaphoreInfo.PermitLease::id).collect(Collectors.joining(","));
        }

        private static String lease(SemaphoreInfo.PermitLease p) {
            return p.leaseMillis() < 0 ? "no expiry" : "lease " + DurationText.formatMillis(p.leaseMillis());
        }

        private static String permits(long n) {
            return n + (n == 1 ? " permit" : " permits");
        }
    }

    /** A count-down latch: open, or closed with its count. */
    record Latch(LatchInfo info) implements ObjectView {
        @Override
        public String text() {
            StringBuilder out = new StringBuilder(info.name()).append('\n');
            if (info.isOpen()) {
                return out.append("  state    count-down latch, open\n").toString();
            }
            return out.append("  state    count-down latch, closed: count ").append(info.count()).append('\n')
                    .append("  ttl      ").append(LockInfoFormat.ttl(info.ttlMillis())).append('\n').toString();
        }

        @Override
        public String json() {
            return "{\"name\":" + Json.string(info.name()) + ",\"type\":\"latch\",\"open\":" + info.isOpen()
                    + ",\"count\":" + info.count() + ",\"ttlMillis\":" + info.ttlMillis() + "}";
        }

        @Override
        public String summary() {
            return info.isOpen() ? info.name() + ": open"
                    : info.name() + ": closed, count " + info.count() + ", ttl " + LockInfoFormat.ttl(info.ttlMillis());
        }

        @Override
        public String signature() {
            return "latch|" + info.count();
        }
    }

    /**
     * A string holding an integer and nothing else: a plain semaphore's available permits, a leased semaphore's with
     * no permit out, or a count-down latch's count; Redis does not record which.
     */
    record Count(SemaphoreInfo info) implements ObjectView {
        private static final String WHICH = "a semaphore's available permits or a count-down latch's count; "
                + "--semaphore or --latch reads it as one";

        @Override
        public String text() {
            return info.name() + "\n  state    count " + info.availablePermits() + ": " + WHICH + "\n"
                    + "  ttl      " + LockInfoFormat.ttl(info.ttlMillis()) + "\n";
        }

        @Override
        public String json() {
            return "{\"name\":" + Json.string(info.name()) + ",\"type\":\"semaphore_or_latch\",\"count\":"
                    + info.availablePermits() + ",\"ttlMillis\":" + info.ttlMillis() + "}";
        }

        @Override
        public String summary() {
            return info.name() + ": count " + info.availablePermits() + " (semaphore or latch: --semaphore or "
                    + "--latch says which)";
        }

        @Override
        public String signature() {
            return "count|" + info.availablePermits();
        }
    }

    /**
     * A name whose key is not the kind asked for, named only by its type: never a field or a value of it (they may be
     * business data).
     *
     * @param kind    {@code lock}, {@code semaphore} or {@code latch}
     * @param message the library's message, naming the object and the key's type
     */
    record Refused(String name, String kind, String message) implements ObjectView {
        @Override
        public String text() {
            return name + "\n  state    not a " + kind + "\n  error    " + Main.oneLine(message) + "\n";
        }

        @Override
        public String json() {
            return "{\"name\":" + Json.string(name) + ",\"type\":" + Json.string("not_a_" + kind.toLowerCase(
                    Locale.ROOT)) + ",\"error\":" + Json.string(message) + "}";
        }

        @Override
        public String summary() {
            return name + ": error: " + Main.oneLine(message);
        }

        @Override
        public String signature() {
            return "error|" + message;
        }

        @Override
        public boolean failed() {
            return true;
        }
    }
}
