package io.dlock.spring.boot.autoconfigure;

import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/env} and {@code /actuator/configprops} of a real web application that shows values: dlock's
 * secrets are hidden, the rest of its settings stay readable (issue 20, point 8).
 */
@ExtendWith(RedisExtension.class)
class DlockSecretsInActuatorIT {
    private final HttpClient http = HttpClient.newHttpClient();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    @Test
    void envAndConfigpropsHideTheTlsPasswordsAndThePasswordOfTheUri(RedisServer redis) throws Exception {
        DlockAutoConfigurationIT.aclUser(redis, "app", "s3cr3t-pw");
        String uri = "redis://app:s3cr3t-pw@127.0.0.1:" + redis.port();
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.SERVLET)
                .properties("server.port=0", "server.address=127.0.0.1",
                        "management.endpoints.web.exposure.include=env,configprops",
                        "management.endpoint.env.show-values=always",
                        "management.endpoint.configprops.show-values=always",
                        "dlock.redis-uri=" + uri, "dlock.tls.trust-store-password=s3cr3t-trust",
                        "dlock.tls.key-store-password=s3cr3t-key", "dlock.tuning.probe-lock-name=app:probe")
                .run()) {
            for (String path : new String[] {"/actuator/env", "/actuator/configprops",
                    "/actuator/env/dlock.redis-uri", "/actuator/env/dlock.tls.key-store-password"}) {
                HttpResponse<String> response = get(app, path);
                assertThat(response.statusCode()).as(path).isEqualTo(200);
                assertThat(response.body()).as(path).doesNotContain("s3cr3t");
            }
            String env = get(app, "/actuator/env").body();
            assertThat(env).as("the user, host and port stay readable")
                    .contains("redis://app:******@127.0.0.1:" + redis.port())
                    .contains("app:probe").as("values are shown");
            assertThat(get(app, "/actuator/configprops").body())
                    .contains("redis://app:******@127.0.0.1:" + redis.port()).contains("app:probe");
        }
    }

    private HttpResponse<String> get(ConfigurableApplicationContext app, String path) throws Exception {
        String port = app.getEnvironment().getProperty("local.server.port");
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
