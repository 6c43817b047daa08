package io.dlock.internal.lock;

import io.dlock.LockKind;
import io.dlock.internal.LockNames;
import io.dlock.internal.ManualScheduler;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.RenewalSender;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Model check of one client's hand-off state machine ({@link LocalCohorts}, {@link LocalCohort}, {@link CohortGate}):
 * every interleaving, up to the bounds of each test, of
 * <ul>
 *   <li>what the client's owners do on one plain lock: lock, wait behind a local holder, attempt in Redis, wait for a
 *       wake-up, enter, unlock (hand-off or release), give up while waiting;</li>
 *   <li>the client's commands reaching the connection in any order across senders (a thread may be delayed between
 *       computing a command's arguments and writing it; one sender's commands keep their order), and Redis running
 *       them in the order they were written, between the moves of another client's owner that contends through
 *       Redis;</li>
 *   <li>the client handling the replies in <em>any</em> order: a reply's handler may run late (it runs on the
 *       thread that sent the command when the reply beat it there, which is how the defect of issue 18 showed);</li>
 *   <li>unlock messages, on time or late, and the holder check ({@code HEXISTS}) each one triggers;</li>
 *   <li>a hand-off whose reply is lost (it ran; the client got an error), and the expiry of a field that nobody
 *       tracks any more.</li>
 * </ul>
 *
 * <p>Checked in every reachable state:
 * <ul>
 *   <li><b>exclusion</b>: at most one owner is inside, across both clients;</li>
 *   <li><b>backed</b>: every owner inside has its field in Redis: the client never lets an owner in on a hold that
 *       Redis does not have, and no unlock finds its hold gone;</li>
 *   <li><b>progress</b>: in a state where nothing is left to do, every owner has finished all its cycles and Redis is
 *       empty (no waiter stranded, no hold left behind).</li>
 * </ul>
 *
 * <p>The client side is the real code: {@link LocalCohorts} and {@link CohortGate} over the hold table's real
 * {@link Hold}s; the release path mirrors {@code HandOffRelease#send} step for step; an owner's
 * acquisition mirrors {@link AcquireLoop}'s steps (queue behind a local holder, else attempt; after a busy reply,
 * queue if a local owner now holds, else wait for a wake-up). Redis is a map with the semantics of
 * {@code lock_acquire.lua}, {@code lock_release.lua}, {@code lock_handoff.lua} and {@code HEXISTS}. Time does not pass
 * (no lease runs out, no timer fires): what a timer would do, a wake-up does. Depth-first, each path replayed from
 * the start, states seen before pruned.
 */
class HandoffModelCheckTest {
    private static final String NAME = "orders";
    private static final String CHANNEL = LockNames.lockChannel(NAME);
    private static final String REMOTE_FIELD = "remote:1";

    /**
     * @param owners       owners of the client under test
     * @param cycles       lock/unlock cycles of each of them
     * @param remote       whether an owner of another client contends (one cycle)
     * @param lateMessages unlock messages that arrive late (from no release in this run)
     * @param giveUps      waits that may be given up
     * @param maxHandoffs  hand-offs in a row before the lock goes back through Redis
     * @param lostReplies  hand-off replies that may be lost (the script ran, the client gets an error)
     */
    record Bounds(int owners, int cycles, boolean remote, int lateMessages, int giveUps, int maxHandoffs,
                  int lostReplies) {
        Bounds(int owners, int cycles, boolean remote, int lateMessages, int giveUps, int maxHandoffs) {
            this(owners, cycles, remote, lateMessages, giveUps, maxHandoffs, 0);
        }
    }

    // Bounds sized for the suite (about 100,000 states, seconds); -Ddlock.modelcheck=full adds the larger ones
    // (about 1.6 million states, minutes). Each of these finds the defect of issue 18 when the reservation of the
    // hand-off's target is taken out (the target left in the queue until the reply, released on its behalf if gone).

    @Test
    void twoOwnersAgainstARemoteOwnerWithALateMessageAndAGiveUp() {
        assertSafe(new Bounds(2, 1, true, 1, 1, 8));
    }

    @Test
    void threeOwnersWithALateMessage() {
        assertSafe(new Bounds(3, 1, false, 1, 0, 8));
    }

    @Test
    void threeOwnersAgainstARemoteOwner() {
        assertSafe(new Bounds(3, 1, true, 0, 0, 8));
    }

    @Test
    void twoOwnersTwoCyclesWithAHandOffCapOfOne() {
        assertSafe(new Bounds(2, 2, false, 0, 0, 1));
    }

    @Test
    void aHandOffWhoseReplyIsLost() {
        assertSafe(new Bounds(2, 2, false, 0, 1, 8, 1));
    }

    @Test
    @EnabledIfSystemProperty(named = "dlock.modelcheck", matches = "full")
    void full() {
        assertSafe(new Bounds(2, 2, true, 1, 0, 8));
        assertSafe(new Bounds(3, 1, true, 1, 0, 8));
        assertSafe(new Bounds(2, 2, false, 1, 1, 8));
        assertSafe(new Bounds(2, 2, true, 0, 0, 1));
        assertSafe(new Bounds(3, 1, true, 0, 1, 8, 1));
    }

    private static void assertSafe(Bounds bounds) {
        Explorer explorer = new Explorer(bounds);
        explorer.explore(new ArrayList<>());
        System.out.printf("hand-off model check %s: %d states, %d finished runs%n", bounds, explorer.seen.size(),
                explorer.endStates);
        assertThat(explorer.violation).as("first violation found (%d states explored)", explorer.seen.size()).isNull();
        assertThat(explorer.endStates).as("runs that finished").isPositive();
    }

    /** Depth-first search over the choices of {@link World#enabled()}. */
    private static final class Explorer {
        final Bounds bounds;
        final Set<String> seen = new HashSet<>();
        String violation;
        int endStates;

        Explorer(Bounds bounds) {
            this.bounds = bounds;
        }

        void explore(List<Integer> path) {
            if (violation != null) {
                return;
            }
            World world = World.replay(bounds, path);
            if (world.violation != null) {
                violation = world.violation + "\nafter: " + String.join(" | ", world.log);
                return;
            }
            if (!seen.add(world.state())) {
                return;
            }
            List<String> choices = world.enabled();
            if (choices.isEmpty()) {
                endStates++;
                String stuck = world.unfinished();
                if (stuck != null) {
                    violation = "progress: " + stuck + "\nafter: " + String.join(" | ", world.log);
                }
                return;
            }
            for (int i = 0; i < choices.size(); i++) {
                path.add(i);
                explore(path);
                path.remove(path.size() - 1);
            }
        }
    }

    /** A reply that never came: the command ran in Redis, the client got an error (a timeout, a cut connection). */
    private static final Object LOST = new Object();

    /** What a command sent by the client under test does in Redis, and what the client does with the reply. */
    private static final class Command {
        /** Who sends it: commands of one sender reach the connection in the order it prepared them. */
        final String sender;
        final String text;
        final java.util.function.Function<Map<String, Integer>, Object> run;
        final Consumer<Object> onReply;
        Object reply;

        Command(String sender, String text, java.util.function.Function<Map<String, Integer>, Object> run,
                Consumer<Object> onReply) {
            this.sender = sender;
            this.text = text;
            this.run = run;
            this.onReply = onReply;
        }
    }

    private enum Phase { IDLE, WAITING, ATTEMPTING, BLOCKED, INSIDE, RELEASING, DONE }

    /** An owner of the client under test, as far as its acquisition ({@link AcquireLoop}) and release go. */
    private static final class Owner {
        final long id;
        final String field;
        int cyclesLeft;
        Phase phase = Phase.IDLE;
        LocalWaiter waiter;
        /** Its caller gave up waiting: a hand-over that still comes is given back. */
        boolean abandoned;

        Owner(long id, int cycles) {
            this.id = id;
            this.field = "client:" + id;
            this.cyclesLeft = cycles;
        }

        @Override
        public String toString() {
            return id + ":" + phase + ":" + cyclesLeft + (abandoned ? ":abandoned" : "")
                    + (waiter == null ? "" : ":" + waiter.turn.getNow(null));
        }
    }

    /** One run: the client under test, the other client's owner, Redis and the messages between them. */
    private static final class World {
        final Bounds bounds;
        final ManualScheduler time = new ManualScheduler();
        final HoldTable holds = new HoldTable(30_000, time, time::nanoTime,
                Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), event -> { });
        final RenewalSender renewal = (holds, leaseMs) ->
                CompletableFuture.completedFuture(new ArrayList<>(Collections.nCopies(holds.size(), 1L)));
        final Map<String, Integer> redis = new TreeMap<>();
        /**
         * Prepared by the client under test (arguments computed) but not yet written to the connection: a thread may
         * be delayed between the two, so a command prepared later may reach Redis first.
         */
        final List<Command> writing = new ArrayList<>();
        /** Written to the connection, not yet run by Redis, in order. */
        final List<Command> sent = new ArrayList<>();
        /** Run by Redis, replies not yet handled. */
        final List<Command> replies = new ArrayList<>();
        final List<Owner> owners = new ArrayList<>();
        final LocalCohorts cohorts;
        final List<String> log = new ArrayList<>();
        int messages;
        int lateMessagesLeft;
        int giveUpsLeft;
        int lostRepliesLeft;
        /** Owners whose last hand-off to them ended without a reply (PendingAcquisitions#mayHaveRun). */
        final Set<String> unanswered = new HashSet<>();
        int remoteCyclesLeft;
        boolean remoteInside;
        String violation;

        private World(Bounds bounds) {
            this.bounds = bounds;
            this.cohorts = new LocalCohorts(time, time::nanoTime, 10_000_000_000L, bounds.maxHandoffs(), 10_000_000L,
                    this::hexists);
            for (int i = 1; i <= bounds.owners(); i++) {
                owners.add(new Owner(i, bounds.cycles()));
            }
            lateMessagesLeft = bounds.lateMessages();
            giveUpsLeft = bounds.giveUps();
            lostRepliesLeft = bounds.lostReplies();
            remoteCyclesLeft = bounds.remote() ? 1 : 0;
        }

        static World replay(Bounds bounds, List<Integer> path) {
            World world = new World(bounds);
            for (int choice : path) {
                String action = world.enabled().get(choice);
                world.log.add(action);
                world.perform(action);
                world.check();
                if (world.violation != null) {
                    break;
                }
            }
            return world;
        }

        // ---- the choices in this state, as names that perform() understands ----

        List<String> enabled() {
            List<String> choices = new ArrayList<>();
            for (Owner o : owners) {
                switch (o.phase) {
                    case IDLE -> choices.add("lock " + o.id);
                    case WAITING -> {
                        if (o.waiter.turn.isDone()) {
                            choices.add("turn " + o.id);
                        } else if (!o.abandoned && giveUpsLeft > 0) {
                            choices.add("giveUp " + o.id);
                        }
                    }
                    case BLOCKED -> {
                        choices.add("wake " + o.id);
                        choices.add("wakeByMessage " + o.id);
                    }
                    case INSIDE -> choices.add("unlock " + o.id);
                    default -> { }
                }
            }
            Set<String> senders = new HashSet<>();
            for (int i = 0; i < writing.size(); i++) {
                if (senders.add(writing.get(i).sender)) {
                    choices.add("write " + i);
                }
            }
            if (!sent.isEmpty()) {
                choices.add("redis");
            }
            for (int i = 0; i < replies.size(); i++) {
                choices.add("reply " + i);
                if (lostRepliesLeft > 0 && replies.get(i).text.startsWith("handoff")) {
                    choices.add("lose " + i);
                }
            }
            if (orphan() != null) {
                choices.add("expire");
            }
            if (messages > 0) {
                choices.add("message");
            }
            if (lateMessagesLeft > 0) {
                choices.add("lateMessage");
            }
            if (remoteInside) {
                choices.add("remoteUnlock");
            } else if (remoteCyclesLeft > 0) {
                choices.add("remoteAttempt");
            }
            return choices;
        }

        void perform(String action) {
            String[] words = action.split(" ");
            Owner owner = words.length > 1 && !words[0].equals("reply") && !words[0].equals("write")
                    && !words[0].equals("lose")
                    ? owners.get(Integer.parseInt(words[1]) - 1) : null;
            switch (words[0]) {
                case "lock", "wake" -> attemptNow(owner);
                case "wakeByMessage" -> sendAttempt(owner);
                case "turn" -> afterTurn(owner);
                case "giveUp" -> giveUp(owner);
                case "unlock" -> release(owner);
                case "write" -> sent.add(writing.remove(Integer.parseInt(words[1])));
                case "redis" -> {
                    Command command = sent.remove(0);
                    command.reply = command.run.apply(redis);
                    replies.add(command);
                }
                case "reply" -> {
                    Command command = replies.remove(Integer.parseInt(words[1]));
                    command.onReply.accept(command.reply);
                }
                case "lose" -> {
                    lostRepliesLeft--;
                    replies.remove(Integer.parseInt(words[1])).onReply.accept(LOST);
                }
                case "expire" -> redis.clear();
                case "message" -> {
                    messages--;
                    cohorts.unlockMessage(CHANNEL);
                }
                case "lateMessage" -> {
                    lateMessagesLeft--;
                    messages++;
                }
                case "remoteAttempt" -> {
                    if (redis.isEmpty()) {
                        redis.put(REMOTE_FIELD, 1);
                        remoteInside = true;
                    }
                }
                case "remoteUnlock" -> {
                    redis.clear();
                    remoteInside = false;
                    remoteCyclesLeft--;
                    messages++;
                }
                default -> throw new IllegalArgumentException(action);
            }
        }

        // ---- an owner's acquisition, as AcquireLoop does it ----

        private CohortGate gate(Owner o) {
            return new CohortGate(cohorts, NAME, o.id, Hold.WATCHDOG);
        }

        /** AcquireLoop#attemptNow: wait behind a local holder if there is one, else attempt in Redis. */
        private void attemptNow(Owner o) {
            LocalWaiter waiter = (LocalWaiter) gate(o).queue(Long.MAX_VALUE);
            if (waiter != null) {
                o.waiter = waiter;
                o.phase = Phase.WAITING;
            } else {
                sendAttempt(o);
            }
        }

        private void sendAttempt(Owner o) {
            o.phase = Phase.ATTEMPTING;
            Hold known = holds.find(new HoldTable.HoldId(NAME, o.field));
            int knownCount = known == null ? 0 : known.acquisitions();
            send(o.field, "acquire " + o.field, r -> acquireScript(r, o.field, knownCount), reply -> {
                unanswered.remove(o.field);
                if (reply == null) {
                    Hold hold = holds.granted(LockKind.PLAIN, NAME, NAME, o.field, o.id, Hold.WATCHDOG,
                            time.nanoTime(), renewal);
                    cohorts.acquired(NAME, o.id, hold);
                    acquired(o);
                } else {
                    gate(o).busyInRedis();
                    LocalWaiter waiter = (LocalWaiter) gate(o).queue(Long.MAX_VALUE);
                    o.waiter = waiter;
                    o.phase = waiter != null ? Phase.WAITING : o.abandoned ? finishCycle(o) : Phase.BLOCKED;
                }
            });
        }

        /** AcquireLoop#afterLocalTurn. */
        private void afterTurn(Owner o) {
            io.dlock.internal.acquire.LocalTurn.Turn turn = o.waiter.turn.join();
            o.waiter = null;
            if (turn == io.dlock.internal.acquire.LocalTurn.Turn.HANDED_OVER) {
                acquired(o);
            } else if (o.abandoned) {
                gate(o).passOn();
                if (!giveUpAfterLostReply(o)) {
                    o.phase = finishCycle(o);
                }
            } else {
                sendAttempt(o);
            }
        }

        /**
         * PlainProtocol#giveUp: drops what a hand-off without a reply may have given the owner. The caller returns
         * (and may lock again) once that is answered (AcquireLoop#finished).
         */
        private boolean giveUpAfterLostReply(Owner o) {
            if (unanswered.remove(o.field)) {
                Hold hold = holds.find(new HoldTable.HoldId(NAME, o.field));
                int known = hold == null ? 0 : hold.acquisitions();
                o.phase = Phase.RELEASING;
                send(o.field, "drop " + o.field, r -> dropScript(r, o.field, known), reply -> o.phase = finishCycle(o));
                return true;
            }
            return false;
        }

        private void giveUp(Owner o) {
            giveUpsLeft--;
            o.abandoned = true;
            gate(o).leave(o.waiter);
        }

        /** The acquisition succeeded; if its caller is gone, it gives the lock back at once (AcquireLoop's undo). */
        private void acquired(Owner o) {
            if (o.abandoned) {
                release(o);
            } else {
                o.phase = Phase.INSIDE;
            }
        }

        // ---- an owner's release, as RedisLock#release and HandOffRelease#send do it ----

        private void release(Owner o) {
            o.phase = Phase.RELEASING;
            HoldTable.Release release = holds.releasing(new HoldTable.HoldId(NAME, o.field));
            Hold hold = release.hold();
            LocalCohort cohort = cohorts.find(NAME);
            LocalWaiter next = cohort == null ? null : cohort.reserveHandoff(o.id, hold, LocalLine.Pick.FIRST).stream().findFirst().orElse(null);
            if (next == null) {
                releaseInRedis(o, release);
                return;
            }
            String to = "client:" + next.ownerId;
            send(o.field, "handoff " + o.field + " -> " + to, r -> handoffScript(r, o.field, to), moved -> {
                if (moved == LOST) {
                    unanswered.add(to);
                    cohort.handoffFailed(List.of(next));
                    // RedisLock#releaseFailed: the owner's last acquisition is forgotten, the hold
                    // ends in Redis with its lease
                    release.outcomeUnknown();
                    cohorts.released(NAME, o.id);
                    o.phase = finishCycle(o);
                    return;
                }
                if (Long.valueOf(1).equals(moved)) {
                    Hold nextHold = holds.granted(LockKind.PLAIN, NAME, NAME, to, next.ownerId, next.leaseMs,
                            time.nanoTime(), renewal);
                    cohort.handedOff(List.of(next), 0, nextHold);
                    released(o, release, 1L);
                    return;
                }
                cohort.handoffFailed(List.of(next));
                if (moved == null) {
                    cohorts.released(NAME, o.id);
                    released(o, release, null);
                } else {
                    releaseInRedis(o, release);
                }
            });
        }

        private void releaseInRedis(Owner o, HoldTable.Release release) {
            Hold hold = release.hold();
            long remaining = hold == null ? -1 : hold.acquisitionsAfterPendingReleases();
            send(o.field, "release " + o.field, r -> releaseScript(r, o.field, remaining), reply -> {
                Long released = (Long) reply;
                if (released == null || released >= 1L) {
                    cohorts.released(NAME, o.id);
                }
                released(o, release, released);
            });
        }

        private void released(Owner o, HoldTable.Release release, Long released) {
            if (released == null) {
                violation = "backed: the unlock of owner " + o.id + " found its hold gone";
                return;
            }
            release.released(released >= 1L);
            o.phase = finishCycle(o);
        }

        private Phase finishCycle(Owner o) {
            o.abandoned = false;
            o.cyclesLeft--;
            return o.cyclesLeft > 0 ? Phase.IDLE : Phase.DONE;
        }

        // ---- Redis ----

        private void send(String sender, String text, java.util.function.Function<Map<String, Integer>, Object> run,
                          Consumer<Object> onReply) {
            writing.add(new Command(sender, text, run, onReply));
        }

        private CompletableFuture<Boolean> hexists(String key, String field) {
            CompletableFuture<Boolean> reply = new CompletableFuture<>();
            send("verify", "hexists " + field, r -> r.containsKey(field), present -> reply.complete((Boolean) present));
            return reply;
        }

        /** lock_acquire.lua: null when acquired, else the PTTL (any number). */
        private static Object acquireScript(Map<String, Integer> r, String field, int known) {
            Integer count = r.get(field);
            if (count == null && !r.isEmpty()) {
                return 30_000L;
            }
            r.put(field, count != null && count > known ? known + 1 : (count == null ? 0 : count) + 1);
            return null;
        }

        /** lock_release.lua in "release" mode: 1 freed (message), 0 holds remain, null not held. */
        private Object releaseScript(Map<String, Integer> r, String field, long remaining) {
            Integer count = r.get(field);
            if (count == null) {
                return null;
            }
            long left = remaining < 0 ? count - 1 : remaining;
            if (left > 0) {
                r.put(field, (int) left);
                return 0L;
            }
            r.clear();
            messages++;
            return 1L;
        }

        /** lock_release.lua in "drop-unknown" mode: a count above what the client knows is brought down to it. */
        private Object dropScript(Map<String, Integer> r, String field, int known) {
            Integer count = r.get(field);
            if (count == null || count <= known) {
                return count == null ? null : 0L;
            }
            if (known > 0) {
                r.put(field, known);
                return 0L;
            }
            r.clear();
            messages++;
            return 1L;
        }

        /**
         * @return the field of a hold that no owner of the client under test believes in and nobody renews, which
         *         Redis lets expire with its lease; null if none
         */
        private String orphan() {
            for (Owner o : owners) {
                if (redis.containsKey(o.field) && holds.find(new HoldTable.HoldId(NAME, o.field)) == null && !inFlight(o.field)) {
                    return o.field;
                }
            }
            return null;
        }

        /** A command for the field awaits Redis or its reply: a grant the client will record, valid from its send. */
        private boolean inFlight(String field) {
            for (List<Command> commands : List.of(writing, sent, replies)) {
                for (Command c : commands) {
                    if (c.text.contains(field)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** lock_handoff.lua: 1 moved, 0 the releaser holds more than once, null it holds nothing. */
        private static Object handoffScript(Map<String, Integer> r, String from, String to) {
            Integer count = r.get(from);
            if (count == null) {
                return null;
            }
            if (count != 1) {
                return 0L;
            }
            r.remove(from);
            r.put(to, 1);
            return 1L;
        }

        // ---- invariants ----

        void check() {
            if (violation != null) {
                return;
            }
            int inside = remoteInside ? 1 : 0;
            for (Owner o : owners) {
                if (o.phase == Phase.INSIDE) {
                    inside++;
                    if (!redis.containsKey(o.field)) {
                        violation = "backed: owner " + o.id + " is inside but Redis has " + redis;
                    }
                }
            }
            if (inside > 1) {
                violation = "exclusion: " + inside + " owners inside, Redis has " + redis;
            }
            if (redis.size() > 1) {
                violation = "exclusion: two fields in the lock hash " + redis;
            }
        }

        /** @return what is left undone in a state with nothing left to do, or null when the run finished cleanly */
        String unfinished() {
            for (Owner o : owners) {
                if (o.phase != Phase.DONE) {
                    return "owner " + o + " cannot go on";
                }
            }
            if (!redis.isEmpty()) {
                return "Redis still holds " + redis;
            }
            return null;
        }

        /** Everything that decides what can happen next (the log does not). */
        String state() {
            StringBuilder b = new StringBuilder().append(redis).append(owners).append(" writing=");
            writing.forEach(c -> b.append(c.text).append(';'));
            b.append(" sent=");
            sent.forEach(c -> b.append(c.text).append(';'));
            b.append(" replies=");
            replies.forEach(c -> b.append(c.text).append('=').append(c.reply).append(';'));
            LocalCohort cohort = cohorts.find(NAME);
            b.append(" cohort=").append(cohort == null ? "none" : cohort.describe());
            for (Owner o : owners) {
                Hold hold = holds.find(new HoldTable.HoldId(NAME, o.field));
                b.append(" hold").append(o.id).append('=').append(hold == null ? 0 : hold.acquisitions());
            }
            return b.append(" m=").append(messages).append(" late=").append(lateMessagesLeft)
                    .append(" lost=").append(lostRepliesLeft).append(" unanswered=").append(unanswered)
                    .append(" giveUps=").append(giveUpsLeft).append(" remote=").append(remoteCyclesLeft)
                    .append(remoteInside).toString();
        }
    }
}
