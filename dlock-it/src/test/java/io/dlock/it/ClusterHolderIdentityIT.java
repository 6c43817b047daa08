package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockInfo;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.Topology;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HolderIdentityIT} on a Redis Cluster: each card lives in the slot of its client's id (its hash tag), and
 * {@code inspect} of locks on every shard reads the holders' cards from wherever they are.
 */
@ExtendWith(RedisExtension.class)
@Topology(Topology.Kind.CLUSTER)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterHolderIdentityIT {

    @Test
    void holdersOnEveryShardAreNamedByCardsInTheirClientsSlots(ClusterTopology cluster, LockClient reader) {
        try (LockClient a = LockClient.create(LockClientConfig.builder().redisUri(cluster.uri())
                .applicationName("svc-a").build());
             LockClient b = LockClient.create(LockClientConfig.builder().redisUri(cluster.uri())
                     .applicationName("svc-b").build());
             RawRedis raw = RawRedis.connect(cluster.uri())) {
            List<String> names = new ArrayList<>();
            Set<Integer> slots = new HashSet<>();
            for (int i = 0; slots.size() < 6; i++) {
                String name = "identity:cluster:" + i;
                if (slots.add(SlotHash.getSlot(name))) {
                    names.add(name);
                }
            }
            List<DistributedLock> held = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                DistributedLock lock = (i % 2 == 0 ? a : b).getLock(names.get(i));
                lock.lock();
                held.add(lock);
            }
            for (int i = 0; i < names.size(); i++) {
                LockClient holder = i % 2 == 0 ? a : b;
                LockInfo info = reader.inspect(names.get(i));
                assertThat(info.holders()).as(names.get(i)).singleElement()
                        .satisfies(h -> assertThat(h.identity()).contains(holder.identity()));
            }
            for (LockClient client : List.of(a, b)) {
                String card = "dlock_client:{" + client.getId() + "}";
                assertThat(SlotHash.getSlot(card)).isEqualTo(SlotHash.getSlot(client.getId()));
                assertThat(raw.hgetall(card)).containsEntry("application", client.identity().application());
            }
            held.forEach(DistributedLock::unlock);
        }
    }

    /**
     * Hold records ({@code holdDetails}) on a Cluster: each lives in its lock's slot, so the acquire, the batched
     * watchdog renewals (one call per slot) and the release reach it; names with their own hash tag included.
     */
    @Test
    void holdRecordsLiveInTheirLocksSlotsAndFollowTheirHoldsOnEveryShard(ClusterTopology cluster, LockClient reader)
            throws Exception {
        try (LockClient a = LockClient.create(LockClientConfig.builder().redisUri(cluster.uri()).holdDetails(true)
                .watchdogTimeout(java.time.Duration.ofMillis(600)).build());
             RawRedis raw = RawRedis.connect(cluster.uri())) {
            List<String> names = new ArrayList<>(List.of("details:{tagged}:a", "details:{tagged}:b"));
            Set<Integer> slots = new HashSet<>();
            for (int i = 0; slots.size() < 6; i++) {
                String name = "details:cluster:" + i;
                if (slots.add(SlotHash.getSlot(name))) {
                    names.add(name);
                }
            }
            Thread t = new Thread(() -> {
                List<DistributedLock> held = new ArrayList<>();
                for (String name : names) {
                    DistributedLock lock = a.getLock(name);
                    lock.lock();
                    held.add(lock);
                }
                // three watchdog timeouts: every record is still there only if the renewals of its slot extended it
                io.dlock.redisprocess.Await.during(java.time.Duration.ofMillis(1_800), () -> names.stream()
                        .allMatch(n -> raw.exists(record(n))), "every record renewed with its hold");
                for (String name : names) {
                    assertThat(SlotHash.getSlot(record(name))).as(name).isEqualTo(SlotHash.getSlot(name));
                    assertThat(reader.inspect(name).holders()).as(name).singleElement().satisfies(h -> assertThat(
                            h.details().map(LockInfo.HoldDetails::thread)).contains("cluster-holder"));
                }
                held.forEach(DistributedLock::unlock);
            }, "cluster-holder");
            java.util.concurrent.atomic.AtomicReference<Throwable> failed =
                    new java.util.concurrent.atomic.AtomicReference<>();
            t.setUncaughtExceptionHandler((thread, e) -> failed.set(e));
            t.start();
            t.join(60_000);
            assertThat(failed.get()).as("the holder thread's checks").isNull();
            for (String name : names) {
                assertThat(raw.exists(record(name))).as("%s: the release deleted its record", name).isFalse();
            }
        }
    }

    private static String record(String name) {
        return name.contains("{") ? "dlock_hold:" + name : "dlock_hold:{" + name + "}";
    }
}
