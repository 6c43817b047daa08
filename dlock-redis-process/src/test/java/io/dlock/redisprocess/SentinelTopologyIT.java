package io.dlock.redisprocess;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class SentinelTopologyIT {

    private static final Duration SHORT = Duration.ofSeconds(2);

    @Test
    void startsFailsOverKillsRecoversAndLeavesNothingRunning() {
        long started = System.nanoTime();
        List<RedisServer> processes = new ArrayList<>();
        try (SentinelTopology redis = SentinelTopology.start()) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("start-up time").isLessThan(
                    Duration.ofSeconds(10));
            processes.addAll(redis.servers());
            processes.addAll(redis.sentinels());
            assertThat(redis.servers()).hasSize(3);
            assertThat(redis.sentinels()).hasSize(3);
            assertThat(redis.uri()).isEqualTo("redis-sentinel://127.0.0.1:" + redis.sentinels().get(0).port()
                    + ",127.0.0.1:" + redis.sentinels().get(1).port() + ",127.0.0.1:" + redis.sentinels().get(2).port()
                    + "/?sentinelMasterId=mymaster");
            RedisServer first = redis.master();
            assertThat(first).isSameAs(redis.servers().get(0));
            assertThat(redis.replicas()).containsExactlyElementsOf(redis.servers().subList(1, 3));
            // Valkey renamed the field: server_mode:sentinel
            assertThat(redis.sentinels().get(0).command(SHORT, "INFO", "server").toString())
                    .containsPattern("(redis|server)_mode:sentinel");
            first.command(SHORT, "SET", "k", "v");

            RedisServer second = redis.killMaster();
            assertThat(second).isNotSameAs(first).isIn(redis.servers());
            assertThat(first.isRunning()).isFalse();
            assertThat(redis.master()).isSameAs(second);
            assertThat(second.command(SHORT, "GET", "k")).as("replicated before the crash").isEqualTo("v");

            redis.recover();
            assertThat(first.isRunning()).isTrue();
            assertThat(first.command(SHORT, "ROLE").toString()).startsWith("[slave, 127.0.0.1, " + second.port());

            RedisServer third = redis.failover();
            assertThat(third).isNotSameAs(second);
            assertThat(third.command(SHORT, "ROLE").toString()).startsWith("[master");
            assertThat(redis.master()).isSameAs(third);
        }
        for (RedisServer process : processes) {
            assertThat(process.isRunning()).isFalse();
            assertThat(ProcessHandle.of(process.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        }
    }
}
