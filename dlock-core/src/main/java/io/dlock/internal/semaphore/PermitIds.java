package io.dlock.internal.semaphore;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Permit ids as Redisson shows them: 16 random bytes in 32 lower-case hex digits. Scripts store the raw bytes
 * (fragment {@code permit_id}); the client only ever handles the hex form.
 */
final class PermitIds {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private PermitIds() {
    }

    /** @return a fresh id, never handed out before (128 random bits) */
    static String fresh() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }

    /**
     * @return {@code id} in lower case
     * @throws IllegalArgumentException when it is not 32 hex digits; the message names the semaphore
     */
    static String require(String semaphore, String id) {
        if (id == null) {
            throw new NullPointerException("permitId");
        }
        String lower = id.toLowerCase(Locale.ROOT);
        if (lower.length() != 32 || !lower.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw new IllegalArgumentException("semaphore '" + semaphore + "': '" + id
                    + "' is not a permit id (32 hex digits)");
        }
        return lower;
    }
}
