package io.dlock.spring;

import io.dlock.LeaderElectionSettings;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.SmartLifecycleRoleController;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DlockLeaderInitiator} in two application contexts on two clients, each with a {@code
 * SmartLifecycleRoleController} that starts the role's endpoint on {@code OnGrantedEvent} and stops it on {@code
 * OnRevokedEvent}, as Spring Integration wires role-based endpoints. The endpoint's stop takes 50 ms; an endpoint
 * started while the other still runs would be two leaders at once, and the count of endpoints running must never
 * pass one.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class DlockLeaderInitiatorIT {
    private static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofMillis(1500)).renewDeadline(Duration.ofMillis(1000)).retryPeriod(Duration.ofMillis(200))
            .stopTimeout(Duration.ofSeconds(2)).build();
    private static final Duration SETTLE = Duration.ofSeconds(10);

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();
    private final List<Instance> instances = new ArrayList<>();
    private String role;

    @BeforeEach
    void role(TestInfo info) {
        role = "role:" + info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void closeContexts() {
        instances.forEach(instance -> instance.context.close());
    }

    @Test
    void exactlyOneIsGrantedAndStoppingTheLeaderGrantsTheOther(LockClient a, LockClient b) {
        Instance first = new Instance(a, "first");
        Instance second = new Instance(b, "second");
        Await.until(SETTLE, () -> first.endpoint.isRunning() || second.endpoint.isRunning(), "a leader");
        Await.during(Duration.ofMillis(600), () -> granted(first) + granted(second) == 1
                && first.initiator.getContext().isLeader() != second.initiator.getContext().isLeader(),
                "exactly one granted");
        Instance leader = first.endpoint.isRunning() ? first : second;
        Instance other = leader == first ? second : first;
        assertThat(leader.events.peek()).isInstanceOf(OnGrantedEvent.class);
        assertThat(leader.events.peek().getRole()).isEqualTo(role);
        assertThat(leader.events.peek().getContext().isLeader()).isTrue();

        leader.initiator.stop();
        assertThat(leader.endpoint.isRunning()).as("the leader's endpoint stopped when stop() returns").isFalse();
        assertThat(leader.events).hasSize(2).last().isInstanceOf(OnRevokedEvent.class);
        assertThat(leader.initiator.getContext().isLeader()).isFalse();
        Await.until(SETTLE, other.endpoint::isRunning, "the other granted");
        assertThat(other.initiator.getContext().isLeader()).isTrue();

        // back as a candidate, then granted when the leader yields
        leader.initiator.start();
        other.initiator.getContext().yield();
        Await.until(SETTLE, leader.endpoint::isRunning, "granted again after the other yielded");
        assertThat(other.endpoint.isRunning()).isFalse();
        assertThat(other.events).hasSize(2).last().isInstanceOf(OnRevokedEvent.class);
        assertThat(most).as("role endpoints running at once").hasValue(1);
    }

    @Test
    void yieldHandsOverBackAndForthWithoutOverlap(LockClient a, LockClient b) {
        Instance first = new Instance(a, "first");
        Instance second = new Instance(b, "second");
        for (int round = 0; round < 10; round++) {
            Await.until(SETTLE, () -> first.initiator.getContext().isLeader()
                    || second.initiator.getContext().isLeader(), "a leader");
            Instance leader = first.initiator.getContext().isLeader() ? first : second;
            int grantedBefore = granted(first) + granted(second);
            leader.initiator.getContext().yield();
            Await.until(SETTLE, () -> granted(first) + granted(second) > grantedBefore, "granted after a yield");
        }
        assertThat(most).as("role endpoints running at once").hasValue(1);
        assertThat(granted(first)).as("both were granted").isPositive();
        assertThat(granted(second)).isPositive();
    }

    private static int granted(Instance instance) {
        return (int) instance.events.stream().filter(OnGrantedEvent.class::isInstance).count();
    }

    /** One application: a role endpoint, Spring Integration's role controller, the initiator. */
    private final class Instance {
        final GenericApplicationContext context = new GenericApplicationContext();
        final Endpoint endpoint = new Endpoint();
        final Queue<AbstractLeaderEvent> events = new ConcurrentLinkedQueue<>();
        final DlockLeaderInitiator initiator;

        Instance(LockClient client, String id) {
            context.registerBean("endpoint", Endpoint.class, () -> endpoint);
            context.registerBean("roleController", SmartLifecycleRoleController.class, () -> {
                SmartLifecycleRoleController controller = new SmartLifecycleRoleController();
                controller.addLifecycleToRole(role, endpoint);
                return controller;
            });
            context.registerBean("initiator", DlockLeaderInitiator.class,
                    () -> new DlockLeaderInitiator(client, new DefaultCandidate(id, role), FAST));
            context.addApplicationListener((ApplicationListener<AbstractLeaderEvent>) events::add);
            context.refresh();
            initiator = context.getBean(DlockLeaderInitiator.class);
            instances.add(this);
        }
    }

    /** A role's endpoint: not auto-started; its stop takes 50 ms, inside until it ends. */
    private final class Endpoint implements SmartLifecycle {
        private volatile boolean started;

        @Override
        public void start() {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            started = true;
        }

        @Override
        public void stop() {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            started = false;
            running.decrementAndGet();
        }

        @Override
        public boolean isRunning() {
            return started;
        }

        @Override
        public boolean isAutoStartup() {
            return false;
        }
    }
}
