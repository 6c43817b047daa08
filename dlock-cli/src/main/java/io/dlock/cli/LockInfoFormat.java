package io.dlock.cli;

import io.dlock.ClientIdentity;
import io.dlock.DistributedLock;
import io.dlock.LockInfo;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** Renders {@link LockInfo} snapshots for people (text) and programs (JSON). */
public final class LockInfoFormat {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT)
            .withZone(ZoneId.systemDefault());

    private LockInfoFormat() {
    }

    /** {@code <client id>:<owner id>}, the hash field the holder writes (and its thread or process id). */
    public static String owner(LockInfo.Holder h) {
        return h.threadId() < 0 ? h.clientId() : h.clientId() + ":" + h.threadId();
    }

    public static String owner(LockInfo.Waiter w) {
        return w.threadId() < 0 ? w.clientId() : w.clientId() + ":" + w.threadId();
    }

    /** {@code orders-svc@host1 pid 4242}, or {@code host1 pid 4242} when the client set no application name. */
    public static String identity(ClientIdentity who) {
        return (who.application().isEmpty() ? "" : who.application() + "@") + who.host() + " pid " + who.pid();
    }

    /** What {@code status} says of a holder whose client has no card. */
    static final String UNKNOWN_CLIENT = "unknown: no client card (a Redisson client, or a dlock client that is gone "
            + "or may not write it)";

    /** The holding clients in order of their first hold, each with its identity when its card was found. */
    private static Map<String, Optional<ClientIdentity>> clients(LockInfo info) {
        Map<String, Optional<ClientIdentity>> clients = new LinkedHashMap<>();
        for (LockInfo.Holder h : info.holders()) {
            clients.merge(h.clientId(), h.identity(), (a, b) -> a.isPresent() ? a : b);
        }
        return clients;
    }

    /**
     * @return {@code "; on orders-svc@host1 pid 4242"} (each holding client whose card was found, in order), or
     *         {@code ""} when none was: the tail of the one-line forms
     */
    private static String onClients(LockInfo info) {
        String known = clients(info).values().stream().flatMap(Optional::stream).map(LockInfoFormat::identity)
                .collect(Collectors.joining(", "));
        return known.isEmpty() ? "" : "; on " + known;
    }

    /** {@code free}, {@code locked}, {@code read-locked} or {@code write-locked}. */
    public static String state(LockInfo info) {
        if (info.type() == LockInfo.Type.NONE) {
            return "free";
        }
        if (info.type() == LockInfo.Type.READ_WRITE) {
            return info.mode() == LockInfo.Mode.WRITE ? "write-locked" : "read-locked";
        }
        return "locked";
    }

    /** @return e.g. {@code 29.3s}, {@code no expiry}, or {@code -} when not locked */
    public static String ttl(long ttlMillis) {
        if (ttlMillis == DistributedLock.TTL_NOT_LOCKED) {
            return "-";
        }
        if (ttlMillis == DistributedLock.TTL_NO_EXPIRY) {
            return "no expiry";
        }
        return DurationText.formatMillis(ttlMillis);
    }

    /** The holders on one line: {@code id:1 (x2), id:7 (read)}; {@code nobody} when none. */
    public static String holders(LockInfo info) {
        if (info.holders().isEmpty()) {
            return "nobody";
        }
        return info.holders().stream().map(h -> {
            String what = owner(h);
            String details = info.type() == LockInfo.Type.READ_WRITE ? (h.write() ? "write" : "read") : "";
            if (h.holdCount() != 1) {
                details = details.isEmpty() ? "x" + h.holdCount() : details + " x" + h.holdCount();
            }
            return details.isEmpty() ? what : what + " (" + details + ")";
        }).collect(Collectors.joining(", "));
    }

    /** The fair queue on one line, first waiter first; {@code empty} when none. */
    public static String queue(LockInfo info) {
        if (info.waiters().isEmpty()) {
            return "empty";
        }
        StringBuilder out = new StringBuilder();
        List<LockInfo.Waiter> waiters = info.waiters();
        for (int i = 0; i < waiters.size(); i++) {
            if (i > 0) {
                out.append(", ");
            }
            out.append(i + 1).append(". ").append(owner(waiters.get(i)));
        }
        return out.toString();
    }

    /**
     * One line: {@code orders:42: locked by id:1 (x2), ttl 29.3s, queue: empty}, then {@code ; on
     * orders-svc@host1 pid 4242} when the holders' clients are known.
     */
    public static String summary(LockInfo info) {
        if (info.type() == LockInfo.Type.NONE && info.waiters().isEmpty()) {
            return info.name() + ": free";
        }
        return info.name() + ": " + state(info) + " by " + holders(info) + ", ttl " + ttl(info.ttlMillis())
                + ", queue: " + queue(info) + onClients(info);
    }

    /**
     * Who holds it, for a "lock is busy" message: {@code held by id:1 (x2) (ttl 29.3s)}, then {@code ; on
     * orders-svc@host1 pid 4242} when the holders' clients are known.
     */
    public static String holderPhrase(LockInfo info) {
        if (info.holders().isEmpty()) {
            return info.waiters().isEmpty() ? "free again now" : "waiters queued before us: " + queue(info);
        }
        String verb = info.type() == LockInfo.Type.READ_WRITE
                ? (info.mode() == LockInfo.Mode.WRITE ? "held for writing by " : "held for reading by ")
                : "held by ";
        return verb + holders(info) + " (ttl " + ttl(info.ttlMillis()) + ")" + onClients(info);
    }

    /**
     * What {@code watch} compares to decide whether to print a new line: everything but the TTL (and the holders'
     * identities, which only describe the holds).
     */
    public static String signature(LockInfo info) {
        return info.type() + "|" + info.mode() + "|" + holders(info) + "|" + queue(info);
    }

    /** The multi-line block of {@code status}. */
    public static String text(LockInfo info) {
        StringBuilder out = new StringBuilder();
        out.append(info.name()).append('\n');
        String kind = info.type() == LockInfo.Type.READ_WRITE ? " (read-write lock)"
                : info.type() == LockInfo.Type.LOCK ? (info.waiters().isEmpty() ? "" : " (fair lock)") : "";
        out.append("  state    ").append(state(info)).append(kind).append('\n');
        if (info.type() != LockInfo.Type.NONE) {
            for (LockInfo.Holder h : info.holders()) {
                out.append("  holder   ").append(owner(h)).append("  hold count ").append(h.holdCount());
                if (info.type() == LockInfo.Type.READ_WRITE) {
                    out.append(h.write() ? "  write" : "  read");
                }
                h.details().ifPresent(d -> out.append("  since ").append(CLOCK.format(d.since()))
                        .append(d.thread().isEmpty() ? "" : "  thread " + d.thread()));
                out.append('\n');
            }
            out.append("  ttl      ").append(ttl(info.ttlMillis())).append('\n');
            clients(info).forEach((clientId, who) -> out.append("  client   ").append(clientId).append("  ")
                    .append(who.map(LockInfoFormat::identity).orElse(UNKNOWN_CLIENT)).append('\n'));
        }
        if (info.waiters().isEmpty()) {
            out.append("  queue    empty\n");
        } else {
            List<LockInfo.Waiter> waiters = info.waiters();
            for (int i = 0; i < waiters.size(); i++) {
                LockInfo.Waiter w = waiters.get(i);
                out.append(i == 0 ? "  queue    " : "           ").append(i + 1).append(". ").append(owner(w));
                if (w.deadline() != null) {
                    out.append("  (place kept until ").append(CLOCK.format(w.deadline())).append(')');
                }
                out.append('\n');
            }
        }
        if (info.fencingToken() != null) {
            out.append("  token    ").append(info.fencingToken()).append('\n');
        }
        return out.toString();
    }

    /** One JSON object; see dlock-cli/README.md for the fields. */
    public static String json(LockInfo info) {
        StringBuilder out = new StringBuilder();
        out.append("{\"name\":").append(Json.string(info.name()));
        out.append(",\"type\":").append(Json.string(info.type().name().toLowerCase(Locale.ROOT)));
        out.append(",\"locked\":").append(!info.holders().isEmpty());
        out.append(",\"mode\":").append(info.mode() == null ? "null"
                : Json.string(info.mode().name().toLowerCase(Locale.ROOT)));
        out.append(",\"ttlMillis\":").append(info.ttlMillis());
        out.append(",\"holders\":[");
        for (int i = 0; i < info.holders().size(); i++) {
            LockInfo.Holder h = info.holders().get(i);
            out.append(i == 0 ? "" : ",");
            out.append("{\"clientId\":").append(Json.string(h.clientId()))
                    .append(",\"ownerId\":").append(h.threadId())
                    .append(",\"holdCount\":").append(h.holdCount())
                    .append(",\"write\":").append(h.write())
                    .append(",\"identity\":").append(h.identity().map(LockInfoFormat::json).orElse("null"))
                    .append(",\"since\":").append(h.details().map(d -> Json.string(d.since().toString())).orElse("null"))
                    .append(",\"thread\":").append(h.details().map(d -> Json.string(d.thread())).orElse("null"))
                    .append('}');
        }
        out.append("],\"waiters\":[");
        for (int i = 0; i < info.waiters().size(); i++) {
            LockInfo.Waiter w = info.waiters().get(i);
            Instant deadline = w.deadline();
            out.append(i == 0 ? "" : ",");
            out.append("{\"clientId\":").append(Json.string(w.clientId()))
                    .append(",\"ownerId\":").append(w.threadId())
                    .append(",\"deadline\":").append(deadline == null ? "null" : Json.string(deadline.toString()))
                    .append('}');
        }
        out.append("],\"fencingToken\":").append(info.fencingToken() == null ? "null" : info.fencingToken().toString());
        return out.append('}').toString();
    }

    /** {@code {"host":…,"pid":…,"application":…}}, the application {@code null} when the client set none. */
    private static String json(ClientIdentity who) {
        return "{\"host\":" + Json.string(who.host()) + ",\"pid\":" + who.pid() + ",\"application\":"
                + (who.application().isEmpty() ? "null" : Json.string(who.application())) + "}";
    }

    /** A JSON array of {@link #json(LockInfo)} objects, one per line. */
    public static String jsonArray(List<LockInfo> infos) {
        if (infos.isEmpty()) {
            return "[]";
        }
        return infos.stream().map(i -> "  " + json(i)).collect(Collectors.joining(",\n", "[\n", "\n]"));
    }
}
