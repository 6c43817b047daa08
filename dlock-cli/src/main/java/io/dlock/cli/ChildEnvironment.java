package io.dlock.cli;

import java.util.HashMap;
import java.util.Map;

/**
 * The environment of the command {@code dlock run} starts: dlock's own, except {@code DLOCK_REDIS} when it carries
 * credentials (a user or password), and the passwords {@code DLOCK_PASSWORD}, {@code DLOCK_TLS_TRUST_STORE_PASSWORD}
 * and {@code DLOCK_TLS_KEY_STORE_PASSWORD}. Without credentials it is passed on, so that a command that runs dlock itself
 * talks to the same Redis; with them it is removed entirely rather than passed stripped, since a stripped URI would
 * only fail later with a confusing authentication error. The orphan guard process gets the same environment.
 */
final class ChildEnvironment {
    private ChildEnvironment() {
    }

    static Map<String, String> of(Map<String, String> parent) {
        Map<String, String> env = new HashMap<>(parent);
        String redis = env.get(RedisUris.ENV);
        if (redis != null && RedisUris.hasCredentials(redis)) {
            env.remove(RedisUris.ENV);
        }
        env.remove(ConnectionOptions.PASSWORD_ENV);
        env.remove(ConnectionOptions.TRUST_STORE_PASSWORD_ENV);
        env.remove(ConnectionOptions.KEY_STORE_PASSWORD_ENV);
        return env;
    }
}
