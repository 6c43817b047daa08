package io.dlock.examples.webflux;

import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The example application on the test kit's Redis: two concurrent requests for one report are served in turn. */
@ExtendWith(RedisExtension.class)
class WebFluxExampleIT {

    @Test
    void twoConcurrentRequestsForOneReportAreSerialized(RedisServer redis, LockClient observer) {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(WebFluxExample.App.class)
                .run("--server.port=0", "--dlock.redis-uri=" + redis.uri())) {
            int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
            WebTestClient client = WebTestClient.bindToServer().baseUrl("http://localhost:" + port)
                    .responseTimeout(Duration.ofSeconds(30)).build();

            List<long[]> works = Flux.range(1, 2)
                    .flatMap(i -> Mono.fromCallable(() -> client.get().uri("/reports/42").exchange()
                            .expectStatus().isOk()
                            .expectBody(String.class).returnResult().getResponseBody())
                            .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic()))
                    .map(WebFluxExampleIT::interval)
                    .collectList().block(Duration.ofSeconds(60));

            assertThat(works).hasSize(2);
            works.sort(Comparator.comparingLong(work -> work[0]));
            assertThat(works.get(1)[0]).as("the second request's work began after the first one's ended")
                    .isGreaterThanOrEqualTo(works.get(0)[1]);
            assertThat(observer.getLock("example:report:42").isLocked()).as("released").isFalse();

            String other = client.get().uri("/reports/7").exchange().expectStatus().isOk()
                    .expectBody(String.class).returnResult().getResponseBody();
            assertThat(other).startsWith("7 ");
        }
    }

    /** @return {start, end} of the answer {@code "<id> <start> <end>"} */
    private static long[] interval(String answer) {
        String[] parts = answer.split(" ");
        assertThat(parts).hasSize(3).startsWith("42");
        return new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])};
    }
}
