package io.dlock.chaos;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An append-only event file, one {@link Event#toLine() line} per event, flushed after each line so that a process
 * killed with SIGKILL loses at most the line it was writing (which {@link #read} skips). Thread-safe.
 */
public final class EventLog implements AutoCloseable {
    private final String source;
    private final BufferedWriter out;

    private EventLog(String source, BufferedWriter out) {
        this.source = source;
        this.out = out;
    }

    public static EventLog create(Path file, String source) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return new EventLog(source, Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open event log " + file, e);
        }
    }

    /** Records an event stamped now. */
    public Event record(Event.Type type, long token, String detail) {
        Event event = new Event(System.nanoTime(), source, type, token, detail);
        write(event);
        return event;
    }

    public Event record(Event.Type type, String detail) {
        return record(type, Event.NO_TOKEN, detail);
    }

    public synchronized void write(Event event) {
        try {
            out.write(event.toLine());
            out.newLine();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write event " + event, e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException ignored) {
            // nothing more to record
        }
    }

    /** @return the events of a file, skipping torn or foreign lines; empty when the file does not exist */
    public static List<Event> read(Path file) {
        List<Event> events = new ArrayList<>();
        if (!Files.exists(file)) {
            return events;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                Optional<Event> event = Event.parse(line);
                event.ifPresent(events::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read event log " + file, e);
        }
        return events;
    }
}
