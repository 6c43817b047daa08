package io.dlock.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Redaction of URIs and scrubbing of output, without Redis (the end-to-end checks are in CredentialsIT). */
class SecretsTest {
    private static final String RAW = "redis://alice:pa/ss@w%rd \"q'@127.0.0.1:6379/0";

    @Test
    void redactHidesTheUserInfoUpToTheLastAt() {
        assertThat(RedisUris.redact(RAW)).isEqualTo("redis://***@127.0.0.1:6379/0");
        assertThat(RedisUris.redact("redis://:secret@h:1")).isEqualTo("redis://***@h:1");
        assertThat(RedisUris.redact("user:pw@host")).isEqualTo("***@host");
        assertThat(RedisUris.redact("redis://h:1/0")).isEqualTo("redis://h:1/0");
    }

    @Test
    void passwordIsTheUserInfoAfterItsFirstColonOrAllOfIt() {
        assertThat(RedisUris.password(RAW)).isEqualTo("pa/ss@w%rd \"q'");
        assertThat(RedisUris.password("redis://s3cret@h")).isEqualTo("s3cret");
        assertThat(RedisUris.password("redis://h:6379")).isNull();
        assertThat(RedisUris.hasCredentials("redis://h:6379")).isFalse();
        assertThat(RedisUris.percentDecode("p%2Fa%40s%25%20%22%27%E2%82%AC+%zz")).isEqualTo("p/a@s% \"'€+%zz");
    }

    @Test
    void scrubbingStreamsHideEveryFormOfThePassword() {
        Secrets.register("redis://bob:hunter2%2Fwith%40odd%25chars%20%22q@h:1");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = Secrets.scrubbing(bytes, StandardCharsets.UTF_8);
        out.println("decoded hunter2/with@odd%chars \"q, encoded hunter2%2Fwith%40odd%25chars%20%22q");
        out.print("a part: odd%chars; json: ");
        out.print("odd%chars \\\"q");
        out.println();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).doesNotContain("hunter2", "odd%chars", "%40odd").contains("decoded ***", "encoded ***");
    }
}
