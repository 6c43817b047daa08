package io.dlock.internal.semaphore;

import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.LocalTurn;
import io.dlock.internal.wakeup.WakeupHub;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One semaphore acquisition's {@link LocalGate} onto its {@link LocalPermits}: after Redis refused it an
 * attempt sent while this client listened to the channel, it may wait in line for a release of this client instead
 * of sleeping on the channel. It never skips an attempt: permits another client released sit in Redis, and only an
 * attempt finds them. Used by one acquisition, whose loop takes one step at a time. A leased-semaphore acquisition
 * brings a fresh {@link PermitTicket} to each place it takes in line: the id and lease its handed permit gets.
 */
final class PermitGate implements LocalGate {
    private final LocalPermitLines lines;
    private final WakeupHub hub;
    private final List<String> channels;
    private final String channel;
    private final int permits;
    /** Makes a leased waiter's ticket for each place in line; null for the plain semaphore. */
    private final Supplier<PermitTicket> tickets;
    private Consumer<PermitTicket> onHanded = ticket -> { };
    /** The last attempt's note, if it was sent while the channel was listened to; taken by {@link #queue}. */
    private volatile LocalPermitLines.Mark mark;
    /** Where this acquisition waits now, or null. */
    private volatile LocalPermits queuedIn;

    PermitGate(LocalPermitLines lines, WakeupHub hub, String channel, int permits, Supplier<PermitTicket> tickets) {
        this.lines = lines;
        this.tickets = tickets;
        this.hub = hub;
        this.channel = channel;
        this.channels = List.of(channel);
        this.permits = permits;
    }

    /**
     * Run when a release hands this acquisition its permits, before its turn completes (records the grant), with the
     * place's ticket (null for the plain semaphore).
     */
    void whenHanded(Consumer<PermitTicket> onHanded) {
        this.onHanded = onHanded;
    }

    /** An attempt is about to be sent: notes the messages so far, if the channel is listened to. */
    void attemptSent() {
        mark = hub.confirmed(channels) ? lines.mark(channel) : null;
    }

    /** The attempt got no answer: the note is dropped (an unanswered attempt was not refused). */
    void attemptFailed() {
        mark = null;
    }

    /** A single attempt never waits in line: always false. */
    @Override
    public boolean heldLocally() {
        return false;
    }

    @Override
    public LocalTurn queue(long maxWaitNanos) {
        LocalPermitLines.Mark m = mark;
        mark = null;
        LocalPermits line = m != null ? m.permits() : lines.find(channel);
        if (line == null) {
            return null;
        }
        PermitTicket ticket = tickets == null ? null : tickets.get();
        Consumer<PermitTicket> handed = onHanded;
        LocalPermits.Waiter waiter = line.queue(permits, m != null ? m.messages() : null, maxWaitNanos, ticket,
                () -> handed.accept(ticket));
        if (waiter == null) {
            return null; // the line, if idle, retires by the tidy its note scheduled
        }
        queuedIn = line;
        waiter.turn().whenComplete((turn, error) -> queuedIn = null);
        return waiter;
    }

    @Override
    public void leave(LocalTurn waiter) {
        LocalPermits line = queuedIn;
        if (line != null) {
            line.sendToRedis((LocalPermits.Waiter) waiter);
            lines.tidy(channel, line);
        }
    }

    @Override
    public void busyInRedis() {
        // a refusal says nothing about this client's own callers: the note taken when the attempt was sent decides
    }

    /**
     * Nothing to check: a waiter only queues after an attempt sent while the channel was listened to, so every
     * release to Redis since then reaches {@link LocalPermits#messageArrived}.
     */
    @Override
    public void verifyHolder() {
    }

    @Override
    public void passOn() {
        LocalPermits line = lines.find(channel);
        if (line != null) {
            line.passOn();
            lines.tidy(channel, line);
        }
    }
}
