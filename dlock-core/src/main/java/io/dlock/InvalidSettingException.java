package io.dlock;

/**
 * A setting of {@link LockClientConfig} was refused: out of range, unreadable, or in conflict with another setting.
 * {@link #setting()} names it as the builder does (e.g. {@code commandTimeout}), so that a framework can point at its
 * own property for it without reading the message.
 */
public class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String setting;

    /**
     * @param setting the builder method of the refused setting (for a conflict: the one set last in the usual order,
     *                that the message says how to resolve)
     * @param message names the setting, the refused value (never a secret) and the rule
     */
    public InvalidSettingException(String setting, String message) {
        super(message);
        this.setting = setting;
    }

    /** @return the builder method of the refused setting, e.g. {@code commandTimeout} or {@code trustStore} */
    public String setting() {
        return setting;
    }
}
