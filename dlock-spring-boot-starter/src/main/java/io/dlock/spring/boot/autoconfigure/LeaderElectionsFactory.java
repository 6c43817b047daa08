package io.dlock.spring.boot.autoconfigure;

import io.dlock.InvalidSettingException;
import io.dlock.LeaderElectionSettings;
import io.dlock.LockClient;
import io.dlock.spring.LeaderElections;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import java.util.Map;
import java.util.regex.Pattern;

import static io.dlock.spring.boot.autoconfigure.PropertyErrors.set;

/**
 * Turns {@code dlock.leader.elections.<name>.*} into a {@link LeaderElections} registry. Every value is checked by
 * {@link LeaderElectionSettings.Builder} as it is set, and the rule between them when built; one it refuses becomes an
 * {@link InvalidConfigurationPropertyValueException} naming the election's property
 * ({@code dlock.leader.elections.billing.renew-deadline}), which Spring Boot reports as the reason start-up failed.
 */
final class LeaderElectionsFactory {
    /** Map keys that Boot's canonical property names carry without brackets. */
    private static final Pattern PLAIN_KEY = Pattern.compile("[a-z0-9][a-z0-9-]*");

    private LeaderElectionsFactory() {
    }

    static LeaderElections create(LockClient client, DlockProperties.Leader leader) {
        LeaderElections elections = new LeaderElections(client);
        for (Map.Entry<String, DlockProperties.Election> entry : leader.getElections().entrySet()) {
            String name = entry.getKey();
            DlockProperties.Election election = entry.getValue();
            elections.add(name, settings(name, election), election.isAutoStart());
        }
        return elections;
    }

    private static LeaderElectionSettings settings(String name, DlockProperties.Election e) {
        LeaderElectionSettings.Builder b = LeaderElectionSettings.builder();
        set(property(name, "lease"), e.getLease(), () -> b.lease(e.getLease()));
        set(property(name, "renew-deadline"), e.getRenewDeadline(), () -> b.renewDeadline(e.getRenewDeadline()));
        set(property(name, "retry-period"), e.getRetryPeriod(), () -> b.retryPeriod(e.getRetryPeriod()));
        set(property(name, "stop-timeout"), e.getStopTimeout(), () -> b.stopTimeout(e.getStopTimeout()));
        try {
            return b.build();
        } catch (InvalidSettingException refused) {
            // build() refuses the rule between the settings, naming the one set last in the usual order
            boolean retry = "election.retryPeriod".equals(refused.setting());
            throw new InvalidConfigurationPropertyValueException(property(name, retry ? "retry-period"
                    : "renew-deadline"), retry ? e.getRetryPeriod() : e.getRenewDeadline(), refused.getMessage());
        }
    }

    /**
     * @return the canonical name of an election's property, e.g. {@code dlock.leader.elections.billing.lease}, or
     *         {@code dlock.leader.elections[role:billing].lease} for a name that needs brackets
     */
    static String property(String election, String field) {
        String key = PLAIN_KEY.matcher(election).matches() ? "." + election : "[" + election + "]";
        return "dlock.leader.elections" + key + "." + field;
    }
}
