package io.dlock.internal.semaphore;

import java.util.HexFormat;
import java.util.Locale;

/**
 * Permit ids as Redisson shows them: 16 random bytes in 32 lower-case hex digits. Scripts store the raw bytes
 * (fragment {@code permit_id}); the client only ever handles the hex form.
 */
final class PermitIds {
    private static final HexFormat HEX = HexFormat.of();

    private PermitIds() {
    }

    /**
     * @return a fresh id, never handed out before (128 random bits). Ids only need to be unique, not unguessable (any
     *         client may release any id, as with Redisson), so they come from the calling thread's
     *         {@link java.util.concurrent.ThreadLocalRandom}: one per acquire attempt, with no lock shared by the
     *         threads that acquire at once.
     */
    static String fresh() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        return HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong());
    }

    /**
     * The ids of one attempt that takes {@code count} permits: {@code first} and the {@code count - 1} numbers after
     * it (as 128-bit integers, wrapping). As fresh as {@code first}: they collide with another attempt's only if
     * two random 128-bit ids fall within {@code count} of each other. Computed again from {@code first} alone, so an
     * attempt whose reply was lost is undone by exactly its ids.
     */
    static String[] series(String first, int count) {
        java.math.BigInteger base = new java.math.BigInteger(first, 16);
        java.math.BigInteger modulus = java.math.BigInteger.ONE.shiftLeft(128);
        String[] ids = new String[count];
        for (int i = 0; i < count; i++) {
            String hex = base.add(java.math.BigInteger.valueOf(i)).mod(modulus).toString(16);
            ids[i] = "0".repeat(32 - hex.length()) + hex;
        }
        return ids;
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
