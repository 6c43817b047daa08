package io.dlock.spring.boot.autoconfigure;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides dlock's secrets in {@code /actuator/env} and {@code /actuator/configprops}, also with
 * {@code show-values=always}: every {@code dlock.*} property whose name contains {@code password} (the TLS store
 * passwords) is shown as {@code ******}, and the user info of {@code dlock.redis-uri} loses its password
 * ({@code redis://app:******@host:6379}; the user name, host and port stay visible for diagnosis). Matches the names as
 * any source spells them: {@code dlock.tls.key-store-password}, {@code dlock.tls.keyStorePassword} (configprops),
 * {@code DLOCK_TLS_KEY_STORE_PASSWORD}. Other properties are left to other functions. Stateless, thread-safe.
 */
final class DlockSecretsSanitizer implements SanitizingFunction {
    /** Scheme, then user info up to the last {@code @} before the first path or fragment. */
    private static final Pattern USER_INFO = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@");

    @Override
    public SanitizableData apply(SanitizableData data) {
        String key = squeeze(data.getKey());
        if (!key.startsWith("dlock")) {
            return data;
        }
        if (key.contains("password")) {
            return data.getValue() == null ? data : data.withSanitizedValue();
        }
        if (key.equals("dlockredisuri") && data.getValue() != null) {
            return data.withValue(withoutPassword(data.getValue().toString()));
        }
        return data;
    }

    /** @return the key in lower case without separators: {@code dlock.tls.key-store-password} → {@code dlocktlskeystorepassword} */
    private static String squeeze(String key) {
        return key == null ? "" : key.toLowerCase(Locale.ROOT).replaceAll("[-_.\\[\\]]", "");
    }

    /** @return {@code uri} with the password of its user info replaced (a lone user info is a password to Redis) */
    static String withoutPassword(String uri) {
        Matcher m = USER_INFO.matcher(uri);
        if (!m.find()) {
            return uri;
        }
        String userInfo = m.group(2);
        int colon = userInfo.indexOf(':');
        String shown = colon >= 0 ? userInfo.substring(0, colon) + ":" + SanitizableData.SANITIZED_VALUE
                : SanitizableData.SANITIZED_VALUE;
        return m.group(1) + shown + "@" + uri.substring(m.end());
    }
}
