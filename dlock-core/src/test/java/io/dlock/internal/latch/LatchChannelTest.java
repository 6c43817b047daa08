package io.dlock.internal.latch;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The latch's channel is always Redisson's; scripts publish on it with plain PUBLISH when it is on another slot. */
class LatchChannelTest {

    @Test
    void redissonsChannelWithBracesAlwaysAdded() {
        assertThat(LatchChannel.of("batch", "publish", key -> 0).channel())
                .isEqualTo("redisson_countdownlatch__channel__{batch}");
        assertThat(LatchChannel.of("{b}:done", "publish", key -> 0).channel())
                .isEqualTo("redisson_countdownlatch__channel__{{b}:done}");
    }

    @Test
    void outsideAClusterTheClientsCommand() {
        assertThat(LatchChannel.of("{b}:done", "publish", key -> 0).publishCommand()).isEqualTo("publish");
    }

    @Test
    void onAClusterPlainPublishWhenTheChannelIsOnAnotherSlot() {
        assertThat(LatchChannel.of("batch", "both", SlotHash::getSlot).publishCommand())
                .as("brace-free: the channel's tag is the name").isEqualTo("both");
        assertThat(LatchChannel.of("a{b", "both", SlotHash::getSlot).publishCommand())
                .as("a '{' that opens no tag: the channel's tag is the whole name").isEqualTo("both");
        assertThat(LatchChannel.of("{b}:done", "both", SlotHash::getSlot).publishCommand())
                .as("hash-tagged: the channel's tag is '{b'").isEqualTo("publish");
        assertThat(LatchChannel.of("a{}b", "both", SlotHash::getSlot).publishCommand()).isEqualTo("publish");
    }
}
