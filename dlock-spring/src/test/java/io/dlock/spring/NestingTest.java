package io.dlock.spring;

import io.dlock.LockKind;
import io.dlock.spring.LockedMethodInterceptor.Nesting;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static io.dlock.LockKind.FAIR;
import static io.dlock.LockKind.FENCED;
import static io.dlock.LockKind.PLAIN;
import static io.dlock.LockKind.READ;
import static io.dlock.LockKind.WRITE;
import static io.dlock.spring.LockedMethodInterceptor.nesting;
import static org.assertj.core.api.Assertions.assertThat;

/** What a nested call of one lock name does, for every pair of kinds (NestedCallsIT runs some of them on Redis). */
class NestingTest {

    @Test
    void everyPairOfKinds() {
        Set<LockKind> exclusive = EnumSet.of(PLAIN, FAIR, FENCED);
        for (LockKind outer : LockKind.values()) {
            for (LockKind inner : LockKind.values()) {
                Nesting expected;
                if (outer == inner || exclusive.contains(outer) && exclusive.contains(inner)) {
                    expected = Nesting.INSIDE;
                } else if (outer == WRITE && inner == READ) {
                    expected = Nesting.REENTER;
                } else {
                    expected = Nesting.REFUSE;
                }
                assertThat(nesting(EnumSet.of(outer), inner)).as("%s inside %s", inner, outer).isEqualTo(expected);
            }
        }
    }

    @Test
    void aWriteInsideAReadInsideAWriteRunsInsideTheWriteHold() {
        assertThat(nesting(EnumSet.of(WRITE, READ), WRITE)).isEqualTo(Nesting.INSIDE);
        assertThat(nesting(EnumSet.of(WRITE, READ), READ)).isEqualTo(Nesting.INSIDE);
        assertThat(nesting(EnumSet.of(WRITE, READ), PLAIN)).isEqualTo(Nesting.REFUSE);
    }
}
