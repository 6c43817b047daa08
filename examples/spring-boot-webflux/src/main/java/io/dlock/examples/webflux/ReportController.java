package io.dlock.examples.webflux;

import io.dlock.spring.DistributedLocked;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import java.time.Duration;

/**
 * Builds a report, one request per report id at a time across every instance on the same Redis: the lock
 * {@code example:report:<id>} is taken when WebFlux subscribes to the handler's Mono and released when the Mono has
 * completed (or failed, or the client went away), with no thread blocked while a request waits for it.
 */
@RestController
public class ReportController {
    /** How long building a report takes (a non-blocking delay standing for a slow query). */
    static final Duration WORK = Duration.ofMillis(300);

    /**
     * @return {@code "<id> <start> <end>"}: the report id and the epoch milliseconds at which its work began and
     *         ended, so that a caller sees that two requests for one id never overlap
     */
    @GetMapping("/reports/{id}")
    @DistributedLocked(name = "example:report:#{#id}", waitTime = "10s")
    public Mono<String> report(@PathVariable String id) {
        return Mono.defer(() -> {
            long start = System.currentTimeMillis();
            return Mono.delay(WORK).map(tick -> id + " " + start + " " + System.currentTimeMillis());
        });
    }
}
