package io.dlock.reactor;

import io.dlock.LockClient;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's example ("Project Reactor"), compiled and run: keep the two in step. */
@ExtendWith({NoBlocking.class, RedisExtension.class})
class ReadmeExampleIT {

    static class NightlyReport {
        Flux<String> run(LockClient client) {
            ReactiveLock lock = ReactiveLockClient.of(client).getLock("reports:nightly");
            return lock.withLock(hold -> Flux.just("a", "b", "c")            // the work: held while it runs
                    .delayElements(Duration.ofMillis(10)));                   // released on complete, error, cancel
        }

        Mono<Boolean> tryOnce(LockClient client) {                            // a hold of your own: release it yourself
            return ReactiveLockClient.of(client).getLock("reports:nightly").tryLock(Duration.ofSeconds(1))
                    .flatMap(hold -> hold.unlock().thenReturn(true)).defaultIfEmpty(false);
        }
    }

    @Test
    void theExampleRuns(LockClient client) {
        NightlyReport report = new NightlyReport();
        StepVerifier.create(report.run(client)).expectNext("a", "b", "c").expectComplete()
                .verify(Duration.ofSeconds(10));
        StepVerifier.create(report.tryOnce(client)).expectNext(true).expectComplete().verify(Duration.ofSeconds(10));
        assertThat(client.heldLocks()).isEmpty();
    }
}
