package io.dlock.cli;

import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * The credentials dlock was given ({@code --redis}, {@code $DLOCK_REDIS}), and output streams that never let them
 * through: every line written to dlock's stdout and stderr has each of them replaced by {@code ***}. This is the
 * last line of defence behind {@link RedisUris#redact(String)}: it also covers messages from the library, Lettuce
 * and the logger.
 *
 * <p>What counts as a secret: the password as written in the URI, percent-decoded, and its parts between the
 * characters that naive URI or shell parsing splits at ({@code / @ : ? #}, white space, quotes), each also as
 * escaped in JSON; pieces shorter than {@value #MIN_LENGTH} characters are left alone (they would mangle ordinary
 * output, and say little about the password).
 */
final class Secrets {
    static final int MIN_LENGTH = 4;
    private static final Set<String> SECRETS = new CopyOnWriteArraySet<>();

    private Secrets() {
    }

    /** Remembers the credentials of {@code uri}, if it has any. */
    static void register(String uri) {
        if (uri == null) {
            return;
        }
        registerPassword(RedisUris.password(uri));
    }

    /** Remembers {@code password} (as written in a URI, or as it is: its percent-decoded form is the same). */
    static void registerPassword(String password) {
        if (password == null) {
            return;
        }
        List<String> forms = new ArrayList<>(List.of(password, RedisUris.percentDecode(password)));
        for (String form : List.copyOf(forms)) {
            forms.addAll(List.of(form.split("[/@:?#\\s\"']")));
        }
        for (String form : forms) {
            if (form.length() >= MIN_LENGTH) {
                SECRETS.add(form);
                String json = Json.string(form); // as `status --json` would write it inside a string
                SECRETS.add(json.substring(1, json.length() - 1));
            }
        }
    }

    /** {@code text} with every registered secret, longest first, replaced by {@code ***}. */
    static String scrub(String text) {
        if (text == null || SECRETS.isEmpty()) {
            return text;
        }
        List<String> secrets = new ArrayList<>(SECRETS);
        secrets.sort(Comparator.comparingInt(String::length).reversed());
        String result = text;
        for (String secret : secrets) {
            result = result.replace(secret, "***");
        }
        return result;
    }

    /** A print stream over {@code out} that scrubs each line (and whatever is flushed) before writing it. */
    static PrintStream scrubbing(OutputStream out, Charset charset) {
        return new PrintStream(new LineScrubber(out, charset), true, charset);
    }

    /** Buffers up to a newline or a flush, then writes the scrubbed text. */
    private static final class LineScrubber extends FilterOutputStream {
        private final Charset charset;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineScrubber(OutputStream out, Charset charset) {
            super(out);
            this.charset = charset;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            line.write(b);
            if (b == '\n') {
                emit();
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }

        @Override
        public synchronized void flush() throws IOException {
            emit();
            out.flush();
        }

        private void emit() throws IOException {
            if (line.size() > 0) {
                out.write(scrub(line.toString(charset)).getBytes(charset));
                line.reset();
            }
        }
    }
}
