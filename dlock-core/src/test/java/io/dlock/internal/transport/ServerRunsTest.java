package io.dlock.internal.transport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ServerRunsTest {

    @Test
    void readsTheRunIdOfAnInfoReply() {
        String info = "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n"
                + "run_id:78f94c01c8265328e02ceba32051fb604328ba58\r\ntcp_port:6379\r\n";
        assertThat(ServerRuns.runId(info)).isEqualTo("78f94c01c8265328e02ceba32051fb604328ba58");
        assertThat(ServerRuns.runId("# Server\nredis_version:6.2.0\n")).isEqualTo(ServerRuns.UNKNOWN);
        assertThat(ServerRuns.runId(null)).isEqualTo(ServerRuns.UNKNOWN);
    }

    @Test
    void onlyTwoKnownDifferentRunsAreAChange() {
        assertThat(ServerRuns.changed("a1", "b2")).isTrue();
        assertThat(ServerRuns.changed("a1", "a1")).isFalse();
        assertThat(ServerRuns.changed(null, "a1")).as("never read closed").isFalse();
        assertThat(ServerRuns.changed("a1", null)).as("no confirmation asked").isFalse();
        assertThat(ServerRuns.changed(ServerRuns.UNKNOWN, "a1")).as("INFO refused before").isFalse();
        assertThat(ServerRuns.changed("a1", ServerRuns.UNKNOWN)).as("INFO refused after").isFalse();
    }

    @Test
    void shortIdsForMessages() {
        assertThat(ServerRuns.shortId("78f94c01c8265328e02ce")).isEqualTo("78f94c01");
        assertThat(ServerRuns.shortId(ServerRuns.UNKNOWN)).isEqualTo("unknown");
    }
}
