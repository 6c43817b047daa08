package io.dlock.bench;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** R1 and R3 are registered, and their driver runs sequential chains until the end and reports a failed cycle. */
class ReactiveScenariosTest {

    @Test
    void bothScenariosAreRegisteredOnce() {
        List<String> ids = Scenarios.all().stream().map(Scenario::id).collect(Collectors.toList());
        assertThat(ids).containsOnlyOnce("R1", "R3");
    }

    @Test
    void chainsRunSequentiallyUntilTheEnd() throws Exception {
        Mono.delay(Duration.ofMillis(1)).block(Duration.ofSeconds(30)); // the timer's start-up, out of the run
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger()};
        AtomicInteger overlaps = new AtomicInteger();
        Load.Result load = ReactiveScenarios.run(2, Duration.ofMillis(500), chain -> Mono.defer(() -> {
            if (inside[chain].incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            return Mono.delay(Duration.ofMillis(1)).doOnNext(t -> inside[chain].decrementAndGet()).then();
        }));
        assertThat(load.failure()).isNull();
        assertThat(load.ops()).isGreaterThan(2);
        assertThat(load.main().getTotalCount()).isEqualTo(load.ops());
        assertThat(load.seconds()).isGreaterThanOrEqualTo(0.5);
        assertThat(overlaps).hasValue(0);
    }

    @Test
    void aFailedCycleFailsTheRun() throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        Load.Result load = ReactiveScenarios.run(4, Duration.ofSeconds(5), chain -> Mono.defer(() ->
                cycles.incrementAndGet() == 20 ? Mono.error(new IllegalStateException("boom")) : Mono.empty()));
        assertThat(load.failure()).hasMessage("boom");
        assertThat(load.seconds()).isLessThan(5);
    }
}
