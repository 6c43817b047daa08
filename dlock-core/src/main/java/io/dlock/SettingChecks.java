package io.dlock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The checks the settings builders share. Each names the refused setting by its path (e.g. {@code tls.trustStore})
 * in the {@link InvalidSettingException} and in its message; a null argument is a {@link NullPointerException} naming
 * it, as everywhere in the API.
 */
final class SettingChecks {
    private SettingChecks() {
    }

    /** @return {@code value}, when it is at least {@code min} */
    static Duration atLeast(Duration value, Duration min, String setting) {
        Objects.requireNonNull(value, setting);
        if (value.compareTo(min) < 0) {
            throw new InvalidSettingException(setting, setting + " must be at least " + min.toMillis() + " ms: "
                    + value);
        }
        return value;
    }

    /** @return {@code value}, when it is not negative */
    static int notNegative(int value, String setting) {
        if (value < 0) {
            throw new InvalidSettingException(setting, setting + " is negative: " + value);
        }
        return value;
    }

    /** @return {@code value}, when it is neither empty nor only white space */
    static String notBlank(String value, String setting) {
        Objects.requireNonNull(value, setting);
        if (value.isBlank()) {
            throw new InvalidSettingException(setting, setting + " is blank");
        }
        return value;
    }

    /** @return {@code file}, when it is a regular file this process may read now */
    static Path readableFile(Path file, String setting) {
        Objects.requireNonNull(file, setting);
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new InvalidSettingException(setting, setting + " is not a readable file: " + file);
        }
        return file;
    }

    /** @return a copy of {@code secret}, or null for null: callers may clear their array, and ours stays private */
    static char[] copy(char[] secret) {
        return secret == null ? null : secret.clone();
    }
}
