package io.dlock.testkit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StressShareTest {

    @Test
    void thePartsOfOneSplitCoverEveryRepetitionOnce() {
        for (int n = 1; n <= 5; n++) {
            for (int total : new int[] {0, 1, 3, 75, 170}) {
                int next = 0;
                for (int k = 1; k <= n; k++) {
                    StressShare share = StressShare.parse(k + "/" + n);
                    assertThat(share.from(total)).as("%d/%d of %d", k, n, total).isEqualTo(next);
                    assertThat(share.count(total)).isBetween(total / n, total / n + 1);
                    next = share.to(total);
                }
                assertThat(next).isEqualTo(total);
            }
        }
        assertThat(StressShare.parse("1/1").isWhole()).isTrue();
        assertThat(StressShare.parse(" 2 / 4 ").count(170)).isEqualTo(43);
    }

    @Test
    void aMalformedShareFailsLoudly() {
        for (String bad : new String[] {"", "1", "0/4", "5/4", "a/b", "1/0", "1/2/3"}) {
            assertThatThrownBy(() -> StressShare.parse(bad)).as(bad).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is not K/N");
        }
    }
}
