package io.dlock.internal.lease;

import io.dlock.LockKind;
import io.dlock.internal.ManualScheduler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code leaseValidFor()} rests on: a hold's known validity is never later than Redis keeps the hold, through
 * acquisitions, re-entries, renewals and partial releases, for holds whose TTL is reset by each acquisition (plain,
 * fair, write, fenced) and for holds whose acquisitions expire one by one (read). Margin: 1% of the lease + 2 ms.
 */
class HoldValidityTest {
    private static final long WATCHDOG_MS = 30_000;
    private static final long MS = 1_000_000L;

    private final ManualScheduler time = new ManualScheduler();
    private HoldTable holds;
    private final List<CompletableFuture<List<Long>>> renewals = new ArrayList<>();

    /** Plain, fair, write and fenced holds: every acquisition resets the one TTL of the hash. */
    private final RenewalSender hashField = this::record;

    /** Read holds: one timeout key per acquisition. */
    private final RenewalSender perAcquisition = new RenewalSender() {
        @Override
        public CompletableFuture<List<Long>> renew(List<Hold> holds, long leaseMs) {
            return record(holds, leaseMs);
        }

        @Override
        public boolean expiresPerAcquisition() {
            return true;
        }
    };

    private CompletableFuture<List<Long>> record(List<Hold> holds, long leaseMs) {
        CompletableFuture<List<Long>> reply = new CompletableFuture<>();
        renewals.add(reply);
        return reply;
    }

    @BeforeEach
    void setUp() {
        holds = new HoldTable(WATCHDOG_MS, time, time::nanoTime, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
                event -> { });
        new LeaseRenewer(holds, time, key -> 0, () -> { }).start();
    }

    private Hold acquire(long leaseMs, RenewalSender kind) {
        return holds.granted(LockKind.PLAIN, "k", "k", "c:1", 1, leaseMs, time.nanoTime(), kind);
    }

    private long validMs(Hold hold) {
        return Math.floorDiv(hold.validForNanos(time.nanoTime()), MS);
    }

    private static long margin(long leaseMs) {
        return leaseMs / 100 + 2;
    }

    private void partialRelease(Hold hold) {
        holds.releasing(new HoldTable.HoldId(hold.key(), hold.field())).released(false);
    }

    @Test
    void marginIsOnePercentOfTheLeasePlusTwoMilliseconds() {
        Hold hold = acquire(10_000, hashField);
        assertThat(validMs(hold)).isEqualTo(10_000 - margin(10_000));
        time.advanceMillis(4_000);
        assertThat(validMs(hold)).isEqualTo(6_000 - margin(10_000));
    }

    @Test
    void reentryWithAShorterLeaseShortensTheHoldAsRedisDoes() {
        Hold hold = acquire(100_000, hashField);
        time.advanceMillis(10);
        acquire(1_000, hashField);
        assertThat(validMs(hold)).isEqualTo(1_000 - margin(1_000));
    }

    @Test
    void partialReleaseToAShorterOuterLeaseShortensTheValidity() {
        Hold hold = acquire(1_000, hashField);        // Redis: TTL 1 s
        time.advanceMillis(100);
        acquire(100_000, hashField);                   // Redis: TTL reset to 100 s
        assertThat(validMs(hold)).isGreaterThan(90_000);
        time.advanceMillis(100);
        partialRelease(hold);                          // Redis: TTL reset to the outer lease, 1 s, from now
        assertThat(validMs(hold)).isEqualTo(1_000 - margin(1_000));
    }

    @Test
    void partialReleaseToALongerOuterLeaseLengthensTheValidityAsRedisDoes() {
        Hold hold = acquire(100_000, hashField);
        time.advanceMillis(100);
        acquire(1_000, hashField);
        time.advanceMillis(100);
        partialRelease(hold);                          // Redis: TTL reset to the outer lease, 100 s, from now
        assertThat(validMs(hold)).isEqualTo(100_000 - margin(100_000));
    }

    /** An outer fixed lease with an inner watchdog re-entry: after the inner unlock the outer lease counts again. */
    @Test
    void anOuterFixedLeaseOutlivesAnInnerWatchdogReentry() {
        Hold hold = acquire(60_000, hashField);
        time.advanceMillis(1_000);
        acquire(Hold.WATCHDOG, hashField);             // Redis: TTL reset to 30 s, renewed while held
        assertThat(hold.isWatchdogRenewed()).isTrue();
        time.advanceMillis(5_000);
        partialRelease(hold);                          // Redis: TTL reset to 60 s from now
        assertThat(validMs(hold)).isEqualTo(60_000 - margin(60_000));
        assertThat(hold.isWatchdogRenewed()).as("the fixed lease just runs out").isFalse();
    }

    @Test
    void partialReleaseKeepingAWatchdogAcquisitionUsesTheWatchdogLease() {
        Hold hold = acquire(Hold.WATCHDOG, hashField);
        time.advanceMillis(100);
        acquire(60_000, hashField);
        time.advanceMillis(100);
        partialRelease(hold);
        assertThat(validMs(hold)).isEqualTo(WATCHDOG_MS - margin(WATCHDOG_MS));
    }

    @Test
    void readHoldLastsAsLongAsItsLongestAcquisition() {
        Hold hold = acquire(100_000, perAcquisition);
        time.advanceMillis(100);
        acquire(1_000, perAcquisition);                // its own key; the 100 s one still counts
        assertThat(validMs(hold)).isEqualTo(99_900 - margin(100_000));
    }

    @Test
    void readPartialReleaseFallsBackToTheLongestRemainingAcquisition() {
        Hold hold = acquire(1_000, perAcquisition);
        time.advanceMillis(100);
        acquire(100_000, perAcquisition);
        assertThat(validMs(hold)).isGreaterThan(90_000);
        partialRelease(hold);                          // the newest key (100 s) goes, the 1 s one is left
        assertThat(validMs(hold)).isEqualTo(900 - margin(1_000));
    }

    @Test
    void readRenewalExtendsOnlyWatchdogAcquisitions() {
        Hold hold = acquire(500, perAcquisition);      // a fixed lease: expires by itself after 500 ms
        acquire(Hold.WATCHDOG, perAcquisition);
        time.advanceMillis(WATCHDOG_MS / 3);           // renewal round
        assertThat(renewals).hasSize(1);
        renewals.get(0).complete(new ArrayList<>(Collections.nCopies(1, 1L)));
        assertThat(validMs(hold)).isEqualTo(WATCHDOG_MS - margin(WATCHDOG_MS));

        partialRelease(hold);                          // the watchdog key goes; the 500 ms one expired long ago
        assertThat(hold.validForNanos(time.nanoTime())).as("ran out: lost at once").isNotPositive();
        assertThat(hold.acquisitions()).isZero();
    }

    @Test
    void anExtensionCountsFromItsSendAlsoWhenShorterAndEndsTheWatchdog() {
        Hold hold = acquire(Hold.WATCHDOG, hashField);
        acquire(60_000, hashField);
        time.advanceMillis(100);
        long sentAt = time.nanoTime();
        time.advanceMillis(50);                        // the reply comes later; Redis ran it in between
        holds.extended(hold, sentAt, 2_000);
        assertThat(validMs(hold)).isEqualTo(1_950 - margin(2_000));
        assertThat(hold.watchdogRenewed()).isFalse();
        partialRelease(hold);                          // Redis: the extended lease, from now
        assertThat(validMs(hold)).isEqualTo(2_000 - margin(2_000));
        time.advanceMillis(WATCHDOG_MS);
        assertThat(renewals).as("never renewed again").isEmpty();
    }

    @Test
    void aRenewalSentBeforeAnExtensionCannotOutliveIt() {
        Hold hold = acquire(Hold.WATCHDOG, hashField);
        time.advanceMillis(WATCHDOG_MS / 3);           // a renewal is sent ...
        assertThat(renewals).hasSize(1);
        time.advanceMillis(10);
        holds.extended(hold, time.nanoTime(), 1_000); // ... an extension to 1 s is sent and answered first ...
        renewals.get(0).complete(List.of(1L));        // ... and the renewal's late reply changes nothing
        assertThat(validMs(hold)).isEqualTo(1_000 - margin(1_000));
    }

    @Test
    void anExtensionWithoutAReplyKeepsTheSoonerExpiry() {
        Hold hold = acquire(10_000, hashField);
        holds.extensionUnknown(hold, time.nanoTime(), 1_000);
        assertThat(validMs(hold)).as("it may have run: 1 s").isEqualTo(1_000 - margin(1_000));
        holds.extensionUnknown(hold, time.nanoTime(), 60_000);
        assertThat(validMs(hold)).as("it may not have run: still 1 s").isEqualTo(1_000 - margin(1_000));

        Hold read = holds.granted(LockKind.READ, "r", "r", "c:2", 2, 5_000, time.nanoTime(), perAcquisition);
        holds.extended(read, time.nanoTime(), 20_000);
        holds.extensionUnknown(read, time.nanoTime(), 3_000);
        assertThat(read.validForNanos(time.nanoTime()) / MS).isEqualTo(3_000 - margin(3_000));
    }

    @Test
    void fencingTokenStaysWithTheHold() {
        Hold hold = acquire(Hold.WATCHDOG, hashField);
        assertThat(hold.fencingToken()).isNull();
        hold.fencingToken(42);
        assertThat(acquire(Hold.WATCHDOG, hashField)).isSameAs(hold);
        assertThat(holds.find(new HoldTable.HoldId("k", "c:1")).fencingToken()).isEqualTo(42L);
    }

    /**
     * A multi-lock's member taken with the watchdog gets the multi-lock's fixed lease once every member is taken: when
     * another watchdog acquisition keeps the hold renewed, only the innermost acquisition's record changes (the outer
     * hold keeps its watchdog; a partial release keeps the watchdog's TTL); otherwise nothing changes here and the
     * caller extends the whole hold.
     */
    @Test
    void innermostToFixedLeaseOnlyWhileAnotherWatchdogAcquisitionRenewsTheHold() {
        Hold hold = acquire(Hold.WATCHDOG, hashField);
        assertThat(holds.innermostToFixedLease(hold, 1_000)).as("its only watchdog acquisition").isFalse();
        assertThat(hold.isWatchdogRenewed()).isTrue();

        acquire(Hold.WATCHDOG, hashField); // the multi-lock's re-entry
        long before = validMs(hold);
        assertThat(holds.innermostToFixedLease(hold, 1_000)).isTrue();
        assertThat(hold.isWatchdogRenewed()).as("the outer acquisition still renews it").isTrue();
        assertThat(validMs(hold)).as("validity untouched: Redis keeps the watchdog's TTL").isEqualTo(before);
        assertThat(hold.acquisitions()).isEqualTo(2);
        assertThat(hold.leaseAfterPartialRelease(WATCHDOG_MS)).isEqualTo(WATCHDOG_MS);
        assertThat(holds.innermostToFixedLease(hold, 1_000)).as("the innermost is no watchdog one now").isFalse();
        partialRelease(hold);
        assertThat(hold.isWatchdogRenewed()).as("the outer watchdog hold is left as it was").isTrue();
        assertThat(hold.currentLease(WATCHDOG_MS)).isEqualTo(WATCHDOG_MS);

        Hold fixed = holds.granted(LockKind.PLAIN, "f", "f", "c:1", 1, 5_000, time.nanoTime(), hashField);
        holds.granted(LockKind.PLAIN, "f", "f", "c:1", 1, Hold.WATCHDOG, time.nanoTime(), hashField);
        assertThat(holds.innermostToFixedLease(fixed, 1_000)).as("no other watchdog acquisition: extend instead")
                .isFalse();
    }
}
