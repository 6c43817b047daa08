package io.dlock.reactor;

import io.dlock.LeaderElection;
import io.dlock.LeaderTerm;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The core election's task for {@link ReactiveLeaderElection#whileLeader}: per term, subscribes to the work made for
 * it, relays its items to the whileLeader subscriber, and stays in the task (the core's task thread, never a Reactor
 * thread) until the work ends. On revocation the core interrupts that thread: the task cancels the work's
 * subscription and waits (up to the stop timeout) until the cancel has run through the work, and only after the task
 * returns does the core release the lock, so the hold outlives the work. A work that completes ends its term (the
 * core's {@code TASK_ENDED}: the candidate competes again after a retry period); one that fails ends its term too and
 * fails the whileLeader Flux with its error.
 */
final class TermWork<T> implements LeaderElection.LeaderTask {
    private final Function<? super LeaderTerm, ? extends Publisher<? extends T>> work;
    private final FluxSink<T> sink;
    private final Duration stopTimeout;

    TermWork(Function<? super LeaderTerm, ? extends Publisher<? extends T>> work, FluxSink<T> sink,
             Duration stopTimeout) {
        this.work = work;
        this.sink = sink;
        this.stopTimeout = stopTimeout;
    }

    @Override
    public void run(LeaderTerm term) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // counted down after the work's terminal signal went through, or after a cancel went up through it
        CountDownLatch ended = new CountDownLatch(1);
        Disposable subscription;
        try {
            subscription = Flux.<T>from(work.apply(term))
                    .doFinally(signal -> ended.countDown())
                    .subscribe(sink::next, failure::set);
        } catch (RuntimeException | Error e) {
            sink.error(e);
            throw e;
        }
        try {
            ended.await();
        } catch (InterruptedException revoked) {
            subscription.dispose();
            ended.await(stopTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return;
        }
        Throwable failed = failure.get();
        if (failed != null) {
            sink.error(failed);
            if (failed instanceof Exception e) {
                throw e;
            }
            throw (Error) failed;
        }
    }
}
