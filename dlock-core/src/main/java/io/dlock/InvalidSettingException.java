package io.dlock;

/**
 * A setting of {@link LockClientConfig} (or of one of its groups: {@link TlsSettings}, {@link TuningSettings},
 * {@link RedisConnection}) was refused: out of range, unreadable, or in conflict with another setting.
 * {@link #setting()} names it by its path, so that a framework can point at its own property for it without reading
 * the message.
 */
public class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String setting;

    /**
     * @param setting the path of the refused setting: a builder method of {@link LockClientConfig.Builder}
     *                ({@code commandTimeout}), or a group, a dot and a method of the group's builder
     *                ({@code tls.trustStore}, {@code tuning.spinWait}, {@code connection.port}); for a conflict, the
     *                one set last in the usual order, that the message says how to resolve
     * @param message names the setting, the refused value (never a secret) and the rule
     */
    public InvalidSettingException(String setting, String message) {
        super(message);
        this.setting = setting;
    }

    /**
     * @return the path of the refused setting, e.g. {@code commandTimeout}, {@code tls.trustStore},
     *         {@code tuning.spinWait} or {@code connection.port}
     */
    public String setting() {
        return setting;
    }
}
