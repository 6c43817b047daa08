package io.dlock.internal.events;

import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.LockEventListener.Acquisition;
import io.dlock.LockEventListener.Outcome;
import io.dlock.LockException;
import io.dlock.LockKind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a client's lock event listeners are told: none, one, several, and listeners that throw. */
class EventSinkTest {

    private record TestHold(String lockName, LockKind kind, long ownerId, int holdCount)
            implements LockEventListener.Hold {
    }

    private static final TestHold HOLD = new TestHold("orders", LockKind.FAIR, 7, 1);

    /** Writes every event it hears, prefixed with its name, to a shared log. */
    private static class Recorder implements LockEventListener {
        final String name;
        final List<String> log;
        final boolean follows;

        Recorder(String name, List<String> log, boolean follows) {
            this.name = name;
            this.log = log;
            this.follows = follows;
        }

        @Override
        public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
            log.add(name + " started " + kind + " " + lockName + " " + ownerId);
            if (!follows) {
                return Acquisition.IGNORED;
            }
            return new Acquisition() {
                @Override
                public void attempted() {
                    log.add(name + " attempted");
                }

                @Override
                public void granted(Hold hold) {
                    log.add(name + " granted " + hold.lockName());
                }

                @Override
                public void ended(Outcome outcome, Throwable failure) {
                    log.add(name + " ended " + outcome + (failure == null ? "" : " " + failure.getMessage()));
                }
            };
        }

        @Override
        public void handedOff(Hold receiver) {
            log.add(name + " handedOff " + receiver.ownerId());
        }

        @Override
        public void holdReleased(Hold hold) {
            log.add(name + " released " + hold.kind());
        }

        @Override
        public void holdLost(Hold hold, LeaseLostEvent.Reason reason) {
            log.add(name + " lost " + reason);
        }

        @Override
        public void holdDiscarded(Hold hold) {
            log.add(name + " discarded");
        }

        @Override
        public void renewalCall(boolean ok) {
            log.add(name + " renewalCall " + ok);
        }

        @Override
        public void holdRenewed(Hold hold, boolean ok) {
            log.add(name + " renewed " + ok);
        }
    }

    /** Throws from every method, acquisitions included. */
    private static final class Thrower implements LockEventListener {
        int calls;

        private RuntimeException fail() {
            calls++;
            return new IllegalStateException("listener bug");
        }

        @Override
        public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
            return new Acquisition() {
                @Override
                public void attempted() {
                    throw fail();
                }

                @Override
                public void ended(Outcome outcome, Throwable failure) {
                    throw fail();
                }
            };
        }

        @Override
        public void holdReleased(Hold hold) {
            throw fail();
        }

        @Override
        public void renewalCall(boolean ok) {
            throw fail();
        }
    }

    @Test
    void withoutListenersNothingIsFollowed() {
        EventSink sink = new EventSink();
        assertThat(sink.get()).isSameAs(EventSink.NONE);
        assertThat(sink.get().acquisitionStarted(LockKind.PLAIN, "a", 1)).isSameAs(Acquisition.IGNORED);
        sink.get().holdReleased(HOLD); // no effect, no error
    }

    @Test
    void oneListenerHearsEveryEventAndAnAcquisitionItDoesNotFollowCostsNothing() {
        List<String> log = new ArrayList<>();
        EventSink sink = new EventSink();
        sink.add(new Recorder("r", log, false));
        assertThat(sink.get().acquisitionStarted(LockKind.READ, "a", 3)).isSameAs(Acquisition.IGNORED);
        LockEventListener events = sink.get();
        events.handedOff(HOLD);
        events.holdReleased(HOLD);
        events.holdLost(HOLD, LeaseLostEvent.Reason.REMOVED);
        events.holdDiscarded(HOLD);
        events.renewalCall(false);
        events.holdRenewed(HOLD, true);
        assertThat(log).containsExactly("r started READ a 3", "r handedOff 7", "r released FAIR", "r lost REMOVED",
                "r discarded", "r renewalCall false", "r renewed true");
    }

    @Test
    void severalListenersAreToldInTheOrderTheyWereAddedAndOnlyFollowersGetAcquisitionEvents() {
        List<String> log = new ArrayList<>();
        EventSink sink = new EventSink();
        sink.add(new Recorder("a", log, true));
        sink.add(new Recorder("b", log, false));
        sink.add(new Recorder("c", log, true));
        Acquisition acquisition = sink.get().acquisitionStarted(LockKind.WRITE, "x", 5);
        acquisition.attempted();
        acquisition.granted(HOLD);
        EventSink.ended(acquisition, true, null);
        sink.get().holdReleased(HOLD);
        assertThat(log).containsExactly("a started WRITE x 5", "b started WRITE x 5", "c started WRITE x 5",
                "a attempted", "c attempted", "a granted orders", "c granted orders", "a ended ACQUIRED",
                "c ended ACQUIRED", "a released FAIR", "b released FAIR", "c released FAIR");
    }

    @Test
    void aListenerAddedTwiceHearsTwiceAndRemoveTakesOneRegistrationAway() {
        List<String> log = new ArrayList<>();
        EventSink sink = new EventSink();
        Recorder r = new Recorder("r", log, false);
        sink.add(r);
        sink.add(r);
        sink.get().renewalCall(true);
        assertThat(log).containsExactly("r renewalCall true", "r renewalCall true");
        sink.remove(r);
        log.clear();
        sink.get().renewalCall(true);
        assertThat(log).containsExactly("r renewalCall true");
        sink.remove(new Recorder("r", log, false)); // another object: nothing removed
        sink.remove(r);
        assertThat(sink.get()).isSameAs(EventSink.NONE);
        assertThatThrownBy(() -> sink.add(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
    }

    @Test
    void whatAListenerThrowsNeverReachesTheCallerNorTheOtherListeners() {
        List<String> log = new ArrayList<>();
        EventSink sink = new EventSink();
        Thrower thrower = new Thrower();
        sink.add(thrower);
        sink.add(new Recorder("r", log, true));
        Acquisition acquisition = sink.get().acquisitionStarted(LockKind.PLAIN, "x", 1);
        acquisition.attempted();
        EventSink.ended(acquisition, false, null);
        sink.get().holdReleased(HOLD);
        sink.get().renewalCall(true);
        assertThat(thrower.calls).isEqualTo(4);
        assertThat(log).containsExactly("r started PLAIN x 1", "r attempted", "r ended TIMED_OUT", "r released FAIR",
                "r renewalCall true");

        EventSink alone = new EventSink();
        alone.add(thrower);
        alone.get().holdReleased(HOLD);
        EventSink.ended(alone.get().acquisitionStarted(LockKind.PLAIN, "x", 1), true, null);
        assertThat(thrower.calls).isEqualTo(6);
    }

    /**
     * Every event of {@link LockEventListener} (those of semaphores and latches included) reaches every listener of a
     * fan-out, and what one throws reaches neither the caller nor the others: checked by reflection, so that an event
     * added later without its guard and fan-out fails here.
     */
    @Test
    void everyEventIsGuardedAndFannedOut() throws Exception {
        List<String> heard = new ArrayList<>();
        LockEventListener thrower = listener(heard, "thrower", true);
        LockEventListener quiet = listener(heard, "quiet", false);
        EventSink sink = new EventSink();
        sink.add(thrower);
        sink.add(quiet);
        List<String> events = new ArrayList<>();
        for (java.lang.reflect.Method event : LockEventListener.class.getMethods()) {
            if (java.lang.reflect.Modifier.isStatic(event.getModifiers())
                    || event.getName().equals("acquisitionStarted")) {
                continue;
            }
            events.add(event.getName());
            Object[] args = new Object[event.getParameterCount()];
            Class<?>[] types = event.getParameterTypes();
            for (int i = 0; i < args.length; i++) {
                args[i] = types[i] == boolean.class ? Boolean.TRUE : types[i] == long.class ? 1L
                        : types[i] == String.class ? "x" : types[i] == Outcome.class ? Outcome.ACQUIRED
                        : types[i] == LeaseLostEvent.Reason.class ? LeaseLostEvent.Reason.EXPIRED
                        : types[i] == LockEventListener.Hold.class ? HOLD : null;
            }
            event.invoke(sink.get(), args);
        }
        assertThat(events).contains("permitAcquisitionEnded", "permitGranted", "permitReleased", "permitLost",
                "latchAwaitEnded", "latchCountedDown");
        for (String event : events) {
            assertThat(heard).as(event).contains("thrower " + event, "quiet " + event);
        }
    }

    /** A listener that logs every event it hears, and throws after logging when {@code throwing}. */
    private static LockEventListener listener(List<String> heard, String label, boolean throwing) {
        return (LockEventListener) java.lang.reflect.Proxy.newProxyInstance(LockEventListener.class.getClassLoader(),
                new Class<?>[]{LockEventListener.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("equals") ? proxy == args[0]
                                : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : label;
                    }
                    heard.add(label + " " + method.getName());
                    if (throwing) {
                        throw new IllegalStateException("listener bug");
                    }
                    return null;
                });
    }

    @Test
    void aVirtualMachineErrorIsNotSwallowed() {
        EventSink sink = new EventSink();
        sink.add(new LockEventListener() {
            @Override
            public void renewalCall(boolean ok) {
                throw new OutOfMemoryError("test");
            }
        });
        assertThatThrownBy(() -> sink.get().renewalCall(true)).isInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void theEndOfAnAcquisitionIsItsOutcome() {
        List<String> log = new ArrayList<>();
        EventSink sink = new EventSink();
        sink.add(new Recorder("r", log, true));
        EventSink.ended(sink.get().acquisitionStarted(LockKind.PLAIN, "x", 1), true, null);
        EventSink.ended(sink.get().acquisitionStarted(LockKind.PLAIN, "x", 1), false, null);
        EventSink.ended(sink.get().acquisitionStarted(LockKind.PLAIN, "x", 1), null,
                new CompletionException(new CancellationException("gave up")));
        EventSink.ended(sink.get().acquisitionStarted(LockKind.PLAIN, "x", 1), null,
                new CompletionException(new LockException("x", "Redis is down", null)));
        assertThat(log).filteredOn(line -> line.startsWith("r ended")).containsExactly("r ended ACQUIRED",
                "r ended TIMED_OUT", "r ended INTERRUPTED", "r ended FAILED Redis is down");
    }
}
