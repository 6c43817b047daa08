package io.dlock.examples.scheduled;

import io.dlock.redisprocess.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.scheduling.annotation.EnableScheduling;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts two instances of one Spring Boot application in this JVM (as two servers of a service would be), both
 * scheduling {@link ReportJob} every second, lets them run for {@code --example.run-for} (default 15 s), then prints
 * dlock's meters of each: every tick ran on exactly one of them.
 *
 * <p>Redis: {@code --dlock.redis-uri=redis://host:port} (or {@code --spring.data.redis.host=…}) when given; else a
 * throw-away {@code redis-server} on a free loopback port, started and stopped here with dlock-redis-process.
 */
public final class ScheduledJobExample {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        ReportJob reportJob(Environment env) {
            return new ReportJob(env.getProperty("example.instance"));
        }
    }

    private ScheduledJobExample() {
    }

    public static void main(String[] args) throws InterruptedException {
        SimpleCommandLinePropertySource commandLine = new SimpleCommandLinePropertySource(args);
        Duration runFor = Duration.parse("PT" + value(commandLine, "example.run-for", "15s").toUpperCase());
        boolean redisGiven = commandLine.containsProperty("dlock.redis-uri")
                || commandLine.getPropertyNames().length > 0 && List.of(commandLine.getPropertyNames()).stream()
                        .anyMatch(name -> name.startsWith("spring.data.redis."))
                || System.getenv("DLOCK_REDIS_URI") != null;
        RedisServer redis = redisGiven ? null : RedisServer.start();
        List<ConfigurableApplicationContext> instances = new ArrayList<>();
        try {
            if (redis != null) {
                System.out.println("No Redis configured: started a throw-away redis-server at " + redis.uri());
            }
            for (String name : new String[] {"a", "b"}) {
                SpringApplicationBuilder app = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                        .properties("example.instance=" + name);
                if (redis != null) {
                    app.properties("dlock.redis-uri=" + redis.uri());
                }
                instances.add(app.run(args));
            }
            System.out.println("Two instances (a, b) schedule the report every second; running for " + runFor);
            Thread.sleep(runFor.toMillis());
            for (int i = 0; i < instances.size(); i++) {
                printMeters(i == 0 ? "a" : "b", instances.get(i).getBean(MeterRegistry.class));
            }
        } finally {
            instances.forEach(ConfigurableApplicationContext::close);
            if (redis != null) {
                redis.close();
            }
        }
    }

    private static String value(SimpleCommandLinePropertySource commandLine, String name, String otherwise) {
        String value = commandLine.getProperty(name);
        return value == null ? otherwise : value;
    }

    /** dlock.acquire: acquired = this instance ran the tick; timed_out = the other one had it (skipped). */
    private static void printMeters(String instance, MeterRegistry registry) {
        StringBuilder line = new StringBuilder("instance " + instance + " dlock.acquire:");
        for (Timer timer : registry.find("dlock.acquire").tag("kind", "plain").timers()) {
            if (timer.count() == 0) {
                continue;
            }
            line.append(' ').append(timer.getId().getTag("outcome")).append('=').append(timer.count());
        }
        System.out.println(line);
    }
}
