package io.dlock.it.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A count-down latch's pub/sub channel, as Redisson names it, and what a test heard on it. */
public final class LatchChannels {
    private LatchChannels() {
    }

    /** @return {@code redisson_countdownlatch__channel__{NAME}} */
    public static String of(String latchName) {
        return "redisson_countdownlatch__channel__{" + latchName + "}";
    }

    /**
     * Waits (at most 5 s each) for {@code count} messages, then adds whatever else has arrived: when the last message
     * expected is the last one published, every message published before it is in the list too (Redis delivers one
     * subscriber's messages in order).
     *
     * @return the messages, in order of arrival
     */
    public static List<String> take(RawRedis.Subscription subscription, int count) throws InterruptedException {
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String message = subscription.messages().poll(5, TimeUnit.SECONDS);
            if (message == null) {
                break;
            }
            messages.add(message);
        }
        subscription.messages().drainTo(messages);
        return messages;
    }
}
