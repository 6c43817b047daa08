package io.dlock.spring.boot.autoconfigure;

import io.dlock.InvalidSettingException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Turns dlock's refusal of a value into the failure Spring Boot reports at start-up, naming the {@code dlock.*}
 * property. A setting's path maps onto its property mechanically, since the properties are grouped as
 * {@code LockClientConfig} groups its settings: {@code commandTimeout} is {@code dlock.command-timeout},
 * {@code tls.trustStore} is {@code dlock.tls.trust-store}, {@code tuning.spinWait} is {@code dlock.tuning.spin-wait}.
 */
final class PropertyErrors {
    private PropertyErrors() {
    }

    /**
     * Runs {@code setter}, which hands {@code property}'s value to a dlock builder.
     *
     * @param shownValue the value as the failure may show it: never a password or a URI with credentials
     * @throws InvalidConfigurationPropertyValueException naming {@code property} when the builder refuses the value
     */
    static void set(String property, Object shownValue, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidConfigurationPropertyValueException(property, shownValue, e.getMessage());
        }
    }

    /** @return the failure of {@code e}'s setting, as the {@code dlock.*} property of that setting */
    static InvalidConfigurationPropertyValueException of(InvalidSettingException e, Object shownValue) {
        return new InvalidConfigurationPropertyValueException(property(e.setting()), shownValue, e.getMessage());
    }

    /** @return the {@code dlock.*} property of a setting's path, e.g. {@code dlock.tls.trust-store} */
    static String property(String setting) {
        StringBuilder out = new StringBuilder("dlock.");
        for (char c : setting.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('-').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
