package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;
import org.junit.jupiter.api.Test;

import static io.dlock.chaos.Event.Type.ELECTED;
import static io.dlock.chaos.Event.Type.REGISTER_ACCEPTED;
import static io.dlock.chaos.Event.Type.REGISTER_REJECTED;
import static io.dlock.chaos.Event.Type.REVOKED;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link ElectionChecks} on made-up histories: clean terms pass, and each broken rule is caught. */
class ElectionChecksTest {
    private static final long MS = TestHistory.MS;

    private final TestHistory history = new TestHistory();

    /** A term of {@code source}: elected, two accepted writes guarded inside it, revoked. */
    private void term(String source, long epoch, long fromMs, long toMs) {
        history.at(fromMs, source, ELECTED, epoch, "");
        write(source, epoch, fromMs + 1, fromMs + 2);
        write(source, epoch, toMs - 2, toMs - 1);
        history.at(toMs, source, REVOKED, epoch, "RESIGNED");
    }

    private void write(String source, long epoch, long guardMs, long atMs) {
        history.at(atMs, "store", REGISTER_ACCEPTED, epoch, source + " guardAt=" + guardMs * MS);
    }

    @Test
    void cleanTermsPass() {
        term("w1-election", 1000, 10, 100);
        term("w2-election", 1001, 110, 200);
        term("w1-election", 1005, 210, 300);
        Report report = history.check();
        assertThat(report.violations(Invariant.ELECTION_TERMS)).isEmpty();
        assertThat(report.violations(Invariant.ELECTION_FENCED)).isEmpty();
        assertThat(report.checked(Invariant.ELECTION_TERMS)).isEqualTo(3);
        assertThat(report.checked(Invariant.ELECTION_FENCED)).isEqualTo(6);
    }

    @Test
    void aWriteGuardedAfterItsTermsRevocationIsCaught() {
        term("w1-election", 1000, 10, 100);
        write("w1-election", 1000, 101, 102);
        assertThat(history.check().violations(Invariant.ELECTION_FENCED)).singleElement().asString()
                .contains("w1-election wrote epoch 1000 through a guard begun at");
    }

    @Test
    void aWriteGuardedBeforeTheRevocationButArrivingAfterItIsAllowed() {
        term("w1-election", 1000, 10, 100);
        write("w1-election", 1000, 99, 103);
        assertThat(history.check().violations(Invariant.ELECTION_FENCED)).isEmpty();
    }

    @Test
    void aStaleWriteIsAViolationWithNoFaultNearAndCountedNearOne() {
        term("w1-election", 1000, 10, 100);
        term("w2-election", 1001, 110, 200);
        history.at(150, "store", REGISTER_REJECTED, 1000, "w1-election guardAt=" + 95 * MS + " highest=1001");
        assertThat(history.check().violations(Invariant.ELECTION_FENCED)).singleElement().asString()
                .contains("stale epoch 1000").contains("two terms overlapped");

        history.fault(140, 145, "redis-restart 0.3s");
        assertThat(history.check().violations(Invariant.ELECTION_FENCED)).isEmpty();
    }

    @Test
    void unpairedTermsTwoWinnersOfAnEpochAndAFallingEpochAreCaught() {
        history.at(10, "w1-election", ELECTED, 1000, "");
        history.at(20, "w1-election", ELECTED, 1001, "");
        history.at(30, "w2-election", REVOKED, 1002, "CLOSED");
        history.at(40, "w2-election", ELECTED, 1001, "");
        history.at(50, "w3-election", ELECTED, 990, "");
        assertThat(history.check().violations(Invariant.ELECTION_TERMS)).hasSize(5).anySatisfy(v ->
                        assertThat(v).contains("without a revoked for epoch 1000"))
                .anySatisfy(v -> assertThat(v).contains("revoked epoch 1002").contains("without an elected"))
                .anySatisfy(v -> assertThat(v).contains("epoch 1001 won by both w1-election and w2-election"))
                .anySatisfy(v -> assertThat(v).contains("w3-election elected with epoch 990"));
    }
}
