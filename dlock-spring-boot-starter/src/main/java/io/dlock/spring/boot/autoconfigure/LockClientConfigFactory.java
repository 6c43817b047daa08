package io.dlock.spring.boot.autoconfigure;

import io.dlock.InvalidSettingException;
import io.dlock.LockClientConfig;
import io.dlock.RedisConnection;
import io.dlock.TuningSettings;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.time.Duration;
import java.util.List;

import static io.dlock.spring.boot.autoconfigure.PropertyErrors.set;

/**
 * Turns {@link DlockProperties} and {@link DlockConnectionDetails} into a {@link LockClientConfig}. Every value is
 * checked by the builder as it is set; one it refuses becomes an {@link InvalidConfigurationPropertyValueException}
 * naming the property (passwords are never shown, nor a URI), which Spring Boot reports as the reason start-up failed.
 */
final class LockClientConfigFactory {
    private LockClientConfigFactory() {
    }

    /**
     * @param applicationName {@code spring.application.name}, the name the client's holds and leadership show
     *                        ({@link io.dlock.ClientIdentity#application()}); null or blank: none. A customizer may
     *                        set another.
     */
    static LockClientConfig create(DlockProperties p, DlockConnectionDetails connection, String applicationName,
                                   List<LockClientConfigCustomizer> customizers) {
        LockClientConfig.Builder b = LockClientConfig.builder();
        applyConnection(b, connection);
        if (applicationName != null && !applicationName.isBlank()) {
            set("spring.application.name", applicationName, () -> b.applicationName(applicationName));
        }
        set("dlock.watchdog-timeout", p.getWatchdogTimeout(), () -> b.watchdogTimeout(p.getWatchdogTimeout()));
        set("dlock.fair-lock-wait-timeout", p.getFairLockWaitTimeout(),
                () -> b.fairLockWaitTimeout(p.getFairLockWaitTimeout()));
        if (p.getCommandTimeout() != null) {
            set("dlock.command-timeout", p.getCommandTimeout(), () -> b.commandTimeout(p.getCommandTimeout()));
        }
        b.holdDetails(p.isHoldDetails());
        DlockProperties.SyncReplicas sync = p.getSyncReplicas();
        set("dlock.sync-replicas.replicas", sync.getReplicas(), () -> b.syncReplicas(sync.getReplicas(),
                Duration.ofSeconds(1)));
        set("dlock.sync-replicas.timeout", sync.getTimeout(), () -> b.syncReplicas(sync.getReplicas(),
                sync.getTimeout()));
        b.tuning(tuning(p.getTuning()));
        b.tls(TlsSettingsFactory.create(p.getTls(), connection));
        for (LockClientConfigCustomizer customizer : customizers) {
            customizer.customize(b);
        }
        try {
            return b.build();
        } catch (InvalidSettingException e) {
            // build() refuses combinations only: the command timeout against the watchdog, or a URI and a connection
            // both given (by a customizer; its other settings are its own to explain)
            if ("connection".equals(e.setting())) {
                throw new InvalidConfigurationPropertyValueException(connection.getOrigin(), "(not shown)",
                        e.getMessage());
            }
            throw PropertyErrors.of(e, p.getCommandTimeout());
        }
    }

    /** Where Redis is: the connection details' structured connection, or else their URI. */
    private static void applyConnection(LockClientConfig.Builder b, DlockConnectionDetails details) {
        RedisConnection connection = details.getConnection();
        String uri = details.getRedisUri();
        if (connection == null && uri == null) {
            throw new InvalidConfigurationPropertyValueException(details.getOrigin(), null,
                    details.getClass().getName() + " gives neither a connection nor a Redis URI");
        }
        if (connection != null) {
            b.connection(connection);
        }
        if (uri != null) {
            // the URI is not shown: it may hold credentials (the builder only refuses a blank one)
            set(details.getOrigin(), "(not shown)", () -> b.redisUri(uri));
        }
    }

    private static TuningSettings tuning(DlockProperties.Tuning p) {
        TuningSettings.Builder t = TuningSettings.builder();
        set("dlock.tuning.spin-wait", p.getSpinWait(), () -> t.spinWait(p.getSpinWait()));
        set("dlock.tuning.local-handoffs", p.getLocalHandoffs(), () -> t.localHandoffs(p.getLocalHandoffs()));
        set("dlock.tuning.probe-lock-name", p.getProbeLockName(), () -> t.probeLockName(p.getProbeLockName()));
        return t.build();
    }
}
