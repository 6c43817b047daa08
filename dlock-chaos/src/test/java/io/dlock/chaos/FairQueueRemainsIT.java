package io.dlock.chaos;

import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** What of the fair queue may stay after a run: only killed waiters' places, with keys expiring on time. */
@ExtendWith(RedisExtension.class)
class FairQueueRemainsIT {
    private static final long SLOT_MS = 5000;
    private static final String QUEUE = FairQueueRemains.keys().get(0);
    private static final String DEADLINES = FairQueueRemains.keys().get(1);
    /** Worker w2 (client c2) was killed; c1's worker stopped cleanly. */
    private static final Function<String, String> KILLED = field -> field.startsWith("c2:") ? "w2/fair/t0" : null;

    private RedisAdmin admin;

    @BeforeEach
    void clean(RedisServer server) {
        server.flushAll();
        admin = new RedisAdmin(server.host(), server.port());
    }

    /** Queues {@code fields} as fair_acquire.lua would: deadlines a slot apart, keys a slot past the latest. */
    private void queue(long keysTtlMs, String... fields) throws IOException {
        long now = nowMs();
        for (int i = 0; i < fields.length; i++) {
            admin.call("RPUSH", QUEUE, fields[i]);
            admin.call("ZADD", DEADLINES, Long.toString(now + (i + 1) * SLOT_MS), fields[i]);
        }
        if (keysTtlMs > 0) {
            admin.call("PEXPIRE", QUEUE, Long.toString(keysTtlMs));
            admin.call("PEXPIRE", DEADLINES, Long.toString(keysTtlMs));
        }
    }

    private long nowMs() throws IOException {
        List<?> t = (List<?>) admin.call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1000 + Long.parseLong(t.get(1).toString()) / 1000;
    }

    private String excuse() throws IOException {
        return FairQueueRemains.excuse(admin, List.of("chaos:fair", QUEUE, DEADLINES), KILLED, SLOT_MS);
    }

    @Test
    void placesOfKilledWaitersExpiringOnTimeAreNoLeak() throws IOException {
        queue(3 * SLOT_MS, "c2:41", "c2:42");
        assertThat(excuse()).contains("w2/fair/t0").contains("a slot after the latest deadline");
    }

    @Test
    void aPlaceOfAWaiterThatStoppedCleanlyIsALeak() throws IOException {
        queue(3 * SLOT_MS, "c2:41", "c1:17");
        assertThat(excuse()).isNull();
    }

    @Test
    void keysWithoutAnExpiryOrOutlivingTheirDeadlinesAreALeak() throws IOException {
        queue(0, "c2:41");
        assertThat(excuse()).isNull();

        admin.call("PEXPIRE", QUEUE, Long.toString(10 * SLOT_MS));
        admin.call("PEXPIRE", DEADLINES, Long.toString(10 * SLOT_MS));
        assertThat(excuse()).isNull();
    }

    @Test
    void nothingToExcuseWithoutQueueKeys() throws IOException {
        assertThat(FairQueueRemains.excuse(admin, List.of("chaos:plain"), KILLED, SLOT_MS)).isNull();
    }
}
