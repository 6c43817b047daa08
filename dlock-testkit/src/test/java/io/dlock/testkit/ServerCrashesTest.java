package io.dlock.testkit;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A crash of the server coming back skips the test; any other failure to start still fails it. */
class ServerCrashesTest {

    @Test
    void aCrashReportSkipsEvenWhenTheTailShowsOnlyItsEnd() {
        // the end of Valkey 8.1.1's crash report, as CI's log tail showed it (valkey-io/valkey#3170)
        String tail = "redis-server failed to start on 127.0.0.1:19520: it exited with code 139\ncommand: [..]\n"
                + "log tail:\ncluster_my_epoch:7\n\n------ CLUSTER NODES OUTPUT ------\nb988… slave 0e19… disconnected";
        assertThatThrownBy(() -> ServerCrashes.recoverOrSkip(() -> {
            throw new IllegalStateException(tail);
        })).isInstanceOf(TestAbortedException.class).hasMessageContaining("valkey-io/valkey#3170");
    }

    @Test
    void anyOtherFailureToStartStillFails() {
        String busy = "redis-server failed to start on 127.0.0.1:6379: port taken\nlog tail:\nAddress already in use";
        assertThatThrownBy(() -> ServerCrashes.recoverOrSkip(() -> {
            throw new IllegalStateException(busy);
        })).isInstanceOf(IllegalStateException.class).isNotInstanceOf(TestAbortedException.class);
        assertThatCode(() -> ServerCrashes.recoverOrSkip(() -> { })).doesNotThrowAnyException();
    }
}
