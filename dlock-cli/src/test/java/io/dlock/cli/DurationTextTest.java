package io.dlock.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationTextTest {

    @ParameterizedTest
    @CsvSource({
        "500ms, 500",
        "10s, 10000",
        "2m, 120000",
        "1h, 3600000",
        "1d, 86400000",
        "1m30s, 90000",
        "1h2m3s4ms, 3723004",
        "0, 0",
        "0s, 0",
        "10, 10000",
        "0.5, 500",
        "1.25s, 1250",
        "1.5m, 90000",
        "PT5S, 5000",
        "pt0.25s, 250",
        "PT1M30S, 90000",
        "P1D, 86400000",
        "' 10S ', 10000",
        "0.0004, 0",
        "0.0005, 1",
    })
    void parses(String text, long millis) {
        assertThat(DurationText.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "abc", "5x", "s", "10 s", "1.s", ".5", "-1", "-5s", "1s-", "ms", "PT", "PTxS",
        "1e3", "10sec", "--5", "1h 2m"})
    void rejectsMalformed(String text) {
        assertThatThrownBy(() -> DurationText.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("Exception");
    }

    @Test
    void rejectsNegativeIsoAndSaysWhy() {
        assertThatThrownBy(() -> DurationText.parse("-PT5S")).hasMessageContaining("negative");
        assertThatThrownBy(() -> DurationText.parse("-3")).hasMessageContaining("negative");
    }

    @Test
    void rejectsOverflow() {
        assertThatThrownBy(() -> DurationText.parse("99999999999999999999d")).hasMessageContaining("too large");
        assertThatThrownBy(() -> DurationText.parse("PT9999999999999999H")).isInstanceOf(
                IllegalArgumentException.class);
    }

    @Test
    void malformedMessageShowsTheInputAndExamples() {
        assertThatThrownBy(() -> DurationText.parse("5x"))
                .hasMessage("'5x' is not a duration (examples: 500ms, 10s, 2m, 1h, PT5S, or a number of seconds)");
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0ms",
        "250, 250ms",
        "999, 999ms",
        "1000, 1s",
        "1500, 1.5s",
        "29340, 29.3s",
        "59990, 60s",
        "60000, 1m00s",
        "125000, 2m05s",
        "3720000, 1h02m",
        "90000000, 1d01h",
        "-5, 0ms",
    })
    void formats(long millis, String text) {
        assertThat(DurationText.formatMillis(millis)).isEqualTo(text);
    }
}
