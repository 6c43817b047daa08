package io.dlock.internal.lock;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** An owner's next acquisition of a hold starts only after every pending cleanup of that hold, and no sooner. */
class AbandonedCleanupsTest {
    private final AbandonedCleanups cleanups = new AbandonedCleanups();
    private final List<String> started = new ArrayList<>();

    @Test
    void startsAtOnceWhenNothingIsPending() {
        cleanups.track("lock", "c:1", CompletableFuture.completedFuture(null));
        cleanups.runAfter("lock", "c:1", () -> started.add("now"));
        assertThat(started).containsExactly("now");
    }

    @Test
    void waitsForEveryPendingCleanupOfTheSameHoldOnly() {
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Void> second = new CompletableFuture<>();
        cleanups.track("lock", "c:1", first);
        cleanups.track("lock", "c:1", second);

        cleanups.runAfter("lock", "c:2", () -> started.add("other owner"));
        cleanups.runAfter("other", "c:1", () -> started.add("other lock"));
        cleanups.runAfter("lock", "c:1", () -> started.add("same owner"));
        assertThat(started).containsExactly("other owner", "other lock");

        second.complete(null);
        assertThat(started).doesNotContain("same owner");
        first.completeExceptionally(new IllegalStateException("a failed cleanup counts as done"));
        assertThat(started).containsExactly("other owner", "other lock", "same owner");

        cleanups.runAfter("lock", "c:1", () -> started.add("later"));
        assertThat(started).last().isEqualTo("later");
    }
}
