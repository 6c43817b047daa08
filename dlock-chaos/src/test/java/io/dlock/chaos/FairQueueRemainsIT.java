package io.dlock.chaos;

import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** What of the fair queue may stay after a run: only killed waiters' places, in keys that expire in time. */
@ExtendWith(RedisExtension.class)
class FairQueueRemainsIT {
    private static final long SLOT_MS = 5000;
    private static final long BOUND_MS = 8 * SLOT_MS;
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

    /** Queues {@code fields} as fair_acquire.lua would: deadlines a slot apart; keys expiring after {@code ttlMs}. */
    private void queue(long ttlMs, String... fields) throws IOException {
        for (int i = 0; i < fields.length; i++) {
            admin.call("RPUSH", QUEUE, fields[i]);
            admin.call("ZADD", DEADLINES, Long.toString(System.currentTimeMillis() + (i + 1) * SLOT_MS), fields[i]);
        }
        if (ttlMs > 0) {
            admin.call("PEXPIRE", QUEUE, Long.toString(ttlMs));
            admin.call("PEXPIRE", DEADLINES, Long.toString(ttlMs));
        }
    }

    private FairQueueRemains.Verdict judge() throws IOException {
        return FairQueueRemains.judge(admin, List.of("chaos:fair", QUEUE, DEADLINES), KILLED, BOUND_MS);
    }

    @Test
    void placesOfKilledWaitersInExpiringKeysAreNoLeak() throws IOException {
        queue(3 * SLOT_MS, "c2:41", "c2:42");
        FairQueueRemains.Verdict verdict = judge();
        assertThat(verdict.leak()).as(verdict.why()).isFalse();
        assertThat(verdict.why()).contains("[w2/fair/t0]");
    }

    @Test
    void aPlaceOfAWaiterThatStoppedCleanlyIsALeak() throws IOException {
        queue(3 * SLOT_MS, "c2:41", "c1:17");
        assertThat(judge().leak()).isTrue();
        assertThat(judge().why()).contains("c1:17");
    }

    @Test
    void keysWithoutAnExpiryOrOutlivingTheBoundAreALeak() throws IOException {
        queue(0, "c2:41");
        assertThat(judge().leak()).isTrue();
        assertThat(judge().why()).contains("-1 ms");

        admin.call("PEXPIRE", QUEUE, Long.toString(2 * BOUND_MS));
        admin.call("PEXPIRE", DEADLINES, Long.toString(2 * BOUND_MS));
        assertThat(judge().leak()).isTrue();
    }

    @Test
    void nothingToJudgeWithoutQueueKeys() throws IOException {
        assertThat(FairQueueRemains.judge(admin, List.of("chaos:plain"), KILLED, BOUND_MS)).isNull();
    }
}
