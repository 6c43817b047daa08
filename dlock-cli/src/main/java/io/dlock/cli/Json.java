package io.dlock.cli;

/**
 * The little JSON the command line writes, by hand. Strings are escaped so that the output is always valid JSON and
 * pure ASCII (every non-ASCII character becomes a {@code \}{@code uXXXX} escape), whatever the terminal's encoding.
 */
public final class Json {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {
    }

    /** @return {@code s} as a JSON string literal, quotes included; {@code null} for null */
    public static String string(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(s.length() + 2);
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20 || c > 0x7e) {
                        out.append("\\u").append(HEX[(c >> 12) & 0xf]).append(HEX[(c >> 8) & 0xf])
                                .append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.append('"').toString();
    }
}
