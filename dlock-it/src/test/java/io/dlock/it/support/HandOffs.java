package io.dlock.it.support;

import io.dlock.LockClient;
import io.dlock.LockEventListener;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts the locks a client hands straight to a waiting owner of its own ({@link LockEventListener#handedOff}). */
public final class HandOffs {
    private HandOffs() {
    }

    /** @return a counter of the hand-offs {@code client} reports from now on */
    public static AtomicInteger countedFor(LockClient client) {
        AtomicInteger count = new AtomicInteger();
        client.addEventListener(new LockEventListener() {
            @Override
            public void handedOff(LockEventListener.Hold receiver) {
                count.incrementAndGet();
            }
        });
        return count;
    }
}
