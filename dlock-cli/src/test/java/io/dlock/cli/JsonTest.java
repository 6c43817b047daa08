package io.dlock.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dlock.ClientIdentity;
import io.dlock.LockInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class JsonTest {
    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void escapesWhatJsonRequires() {
        assertThat(Json.string("plain")).isEqualTo("\"plain\"");
        assertThat(Json.string("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
        assertThat(Json.string("l1\nl2\r\t\b\f")).isEqualTo("\"l1\\nl2\\r\\t\\b\\f\"");
        assertThat(Json.string("\u0000\u001f")).isEqualTo("\"\\u0000\\u001f\"");
        assertThat(Json.string(null)).isEqualTo("null");
        assertThat(Json.string("/")).isEqualTo("\"/\"");
    }

    @Test
    void writesNonAsciiAsEscapesSoTheOutputIsAscii() {
        assertThat(Json.string("ü€\u007f\u2028")).isEqualTo("\"\\u00fc\\u20ac\\u007f\\u2028\"");
        assertThat(Json.string("\uD83D\uDE00")).isEqualTo("\"\\ud83d\\ude00\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "orders:42", "we\"ird\\name", "tab\there", "line\nbreak", "ünïcödé ☃ \uD83D\uDE00",
        "\u0001\u001e", "{braces}:[x]", "</script>"})
    void roundTripsThroughAStrictParser(String s) throws Exception {
        assertThat(mapper.readValue(Json.string(s), String.class)).isEqualTo(s);
    }

    @Test
    void lockInfoOfAHeldLock() throws Exception {
        LockInfo info = new LockInfo("orders:\"42\"", LockInfo.Type.LOCK, null,
                List.of(new LockInfo.Holder("c1-uuid", 17, 2, false)), 29_345, List.of(), null);
        JsonNode node = mapper.readTree(LockInfoFormat.json(info));
        assertThat(node.get("name").asText()).isEqualTo("orders:\"42\"");
        assertThat(node.get("type").asText()).isEqualTo("lock");
        assertThat(node.get("locked").asBoolean()).isTrue();
        assertThat(node.get("mode").isNull()).isTrue();
        assertThat(node.get("ttlMillis").asLong()).isEqualTo(29_345);
        assertThat(node.get("holders")).hasSize(1);
        JsonNode holder = node.get("holders").get(0);
        assertThat(holder.get("clientId").asText()).isEqualTo("c1-uuid");
        assertThat(holder.get("ownerId").asLong()).isEqualTo(17);
        assertThat(holder.get("holdCount").asInt()).isEqualTo(2);
        assertThat(holder.get("write").asBoolean()).isFalse();
        assertThat(node.get("waiters")).isEmpty();
        assertThat(node.get("fencingToken").isNull()).isTrue();
    }

    @Test
    void lockInfoOfAFreeLock() throws Exception {
        LockInfo info = new LockInfo("free", LockInfo.Type.NONE, null, List.of(), -2, List.of(), null);
        assertThat(LockInfoFormat.json(info)).isEqualTo("{\"name\":\"free\",\"type\":\"none\",\"locked\":false,"
                + "\"mode\":null,\"ttlMillis\":-2,\"holders\":[],\"waiters\":[],\"fencingToken\":null}");
    }

    @Test
    void lockInfoOfAReadWriteLockWithQueueAndToken() throws Exception {
        Instant deadline = Instant.parse("2030-01-02T03:04:05.678Z");
        LockInfo info = new LockInfo("rw", LockInfo.Type.READ_WRITE, LockInfo.Mode.WRITE,
                List.of(new LockInfo.Holder("w", 1, 1, true), new LockInfo.Holder("r", 2, 3, false)), 1000,
                List.of(new LockInfo.Waiter("q1", 5, deadline), new LockInfo.Waiter("q2:x", -1, null)), 42L);
        JsonNode node = mapper.readTree(LockInfoFormat.json(info));
        assertThat(node.get("type").asText()).isEqualTo("read_write");
        assertThat(node.get("mode").asText()).isEqualTo("write");
        assertThat(node.get("holders").get(0).get("write").asBoolean()).isTrue();
        assertThat(node.get("holders").get(1).get("holdCount").asInt()).isEqualTo(3);
        assertThat(node.get("waiters").get(0).get("deadline").asText()).isEqualTo("2030-01-02T03:04:05.678Z");
        assertThat(node.get("waiters").get(1).get("ownerId").asLong()).isEqualTo(-1);
        assertThat(node.get("waiters").get(1).get("deadline").isNull()).isTrue();
        assertThat(node.get("fencingToken").asLong()).isEqualTo(42);
    }

    @Test
    void arrayOfLocks() throws Exception {
        LockInfo a = new LockInfo("a", LockInfo.Type.NONE, null, List.of(), -2, List.of(), null);
        LockInfo b = new LockInfo("b", LockInfo.Type.NONE, null, List.of(), -2, List.of(), null);
        JsonNode node = mapper.readTree(LockInfoFormat.jsonArray(List.of(a, b)));
        assertThat(node.isArray()).isTrue();
        assertThat(node).hasSize(2);
        assertThat(mapper.readTree(LockInfoFormat.jsonArray(List.of()))).isEmpty();
    }

    @Test
    void humanTextNamesHoldersCountsTtlAndQueue() {
        LockInfo info = new LockInfo("orders", LockInfo.Type.LOCK, null,
                List.of(new LockInfo.Holder("c1", 7, 2, false)), 1500,
                List.of(new LockInfo.Waiter("c2", 9, null)), null);
        assertThat(LockInfoFormat.text(info)).contains("locked (fair lock)", "holder   c1:7  hold count 2",
                "ttl      1.5s", "queue    1. c2:9");
        assertThat(LockInfoFormat.summary(info)).isEqualTo("orders: locked by c1:7 (x2), ttl 1.5s, queue: 1. c2:9");
        assertThat(LockInfoFormat.holderPhrase(info)).isEqualTo("held by c1:7 (x2) (ttl 1.5s)");
    }

    @Test
    void holdersAreNamedByTheirClientsIdentityWhenKnown() throws Exception {
        ClientIdentity known = new ClientIdentity("c1", "host1", 4242, "orders-svc");
        LockInfo info = new LockInfo("rw", LockInfo.Type.READ_WRITE, LockInfo.Mode.READ,
                List.of(new LockInfo.Holder("c1", 7, 1, false, Optional.of(known)),
                        new LockInfo.Holder("c2", 9, 1, false)), 1500, List.of(), null);
        JsonNode node = mapper.readTree(LockInfoFormat.json(info));
        JsonNode identity = node.get("holders").get(0).get("identity");
        assertThat(identity.get("host").asText()).isEqualTo("host1");
        assertThat(identity.get("pid").asLong()).isEqualTo(4242);
        assertThat(identity.get("application").asText()).isEqualTo("orders-svc");
        assertThat(node.get("holders").get(1).get("identity").isNull()).isTrue();
        assertThat(LockInfoFormat.text(info)).contains("  ttl      1.5s\n  client   c1  orders-svc@host1 pid 4242\n"
                + "  client   c2  unknown: no client card (a Redisson client, ");
        assertThat(LockInfoFormat.summary(info))
                .isEqualTo("rw: read-locked by c1:7 (read), c2:9 (read), ttl 1.5s, queue: empty; "
                        + "on orders-svc@host1 pid 4242");
        assertThat(LockInfoFormat.holderPhrase(info)).endsWith("(ttl 1.5s); on orders-svc@host1 pid 4242");
        assertThat(LockInfoFormat.signature(info)).as("identities describe the holds, they are no change to watch")
                .isEqualTo(LockInfoFormat.signature(new LockInfo("rw", LockInfo.Type.READ_WRITE, LockInfo.Mode.READ,
                        List.of(new LockInfo.Holder("c1", 7, 1, false), new LockInfo.Holder("c2", 9, 1, false)), 1500,
                        List.of(), null)));
        LockInfo noApplication = new LockInfo("x", LockInfo.Type.LOCK, null, List.of(new LockInfo.Holder("c3", 1, 1,
                false, Optional.of(new ClientIdentity("c3", "h", 1, "")))), 1000, List.of(), null);
        assertThat(LockInfoFormat.text(noApplication)).contains("  client   c3  h pid 1\n");
        assertThat(mapper.readTree(LockInfoFormat.json(noApplication)).get("holders").get(0).get("identity")
                .get("application").isNull()).isTrue();
    }
}
