package io.dlock.examples.webflux;

import io.dlock.redisprocess.RedisServer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.List;

/**
 * Starts the WebFlux application ({@link ReportController}) on {@code --server.port} (8080 by default; 0 for a free
 * one), sends it two concurrent requests for the same report and prints their answers: the second one's work begins
 * after the first one's ended. Then serves for {@code --example.serve-for} (default 0s: stops at once).
 *
 * <p>Redis: {@code --dlock.redis-uri=redis://host:port} (or {@code --spring.data.redis.host=…}) when given; else a
 * throw-away {@code redis-server} on a free loopback port, started and stopped here with dlock-redis-process.
 */
public final class WebFluxExample {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ReportController.class)
    public static class App {
    }

    private WebFluxExample() {
    }

    public static void main(String[] args) throws InterruptedException {
        SimpleCommandLinePropertySource commandLine = new SimpleCommandLinePropertySource(args);
        String serveFor = commandLine.containsProperty("example.serve-for")
                ? commandLine.getProperty("example.serve-for") : "0s";
        boolean redisGiven = commandLine.containsProperty("dlock.redis-uri")
                || List.of(commandLine.getPropertyNames()).stream().anyMatch(n -> n.startsWith("spring.data.redis."))
                || System.getenv("DLOCK_REDIS_URI") != null;
        RedisServer redis = redisGiven ? null : RedisServer.start();
        try {
            if (redis != null) {
                System.out.println("No Redis configured: started a throw-away redis-server at " + redis.uri());
            }
            SpringApplicationBuilder app = new SpringApplicationBuilder(App.class);
            if (redis != null) {
                app.properties("dlock.redis-uri=" + redis.uri());
            }
            try (ConfigurableApplicationContext context = app.run(args)) {
                int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port", "8080"));
                WebClient client = WebClient.create("http://localhost:" + port);
                List<String> answers = Flux.range(1, 2)
                        .flatMap(i -> client.get().uri("/reports/42").retrieve().bodyToMono(String.class))
                        .collectList().block(Duration.ofSeconds(30));
                System.out.println("Two concurrent requests for report 42 (id, work start, work end in ms):");
                answers.forEach(answer -> System.out.println("  " + answer));
                Duration serve = Duration.parse("PT" + serveFor.toUpperCase());
                if (!serve.isZero()) {
                    System.out.println("Serving on http://localhost:" + port + "/reports/{id} for " + serve);
                    Thread.sleep(serve.toMillis());
                }
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }
}
