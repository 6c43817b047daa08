package io.dlock.bench;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.locks.Lock;

/**
 * A child JVM of scenario S4: {@code threads} threads of one client cycle on one lock for {@code seconds}, each cycle
 * incrementing a counter kept in Redis with a non-atomic GET then SET. Prints one line
 * {@code RESULT <ops> <cpuNanos> <base64 histogram>} on stdout.
 *
 * <p>Arguments: library uri lockName threads millis startAtEpochMillis
 */
public final class ContendWorker {
    private ContendWorker() {
    }

    public static void main(String[] args) throws Exception {
        String library = args[0];
        String uri = args[1];
        String name = args[2];
        int threads = Integer.parseInt(args[3]);
        Duration duration = Duration.ofMillis(Long.parseLong(args[4]));
        long startAt = Long.parseLong(args[5]);
        try (Library lib = Library.open(library, uri, Duration.ofSeconds(30))) {
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(uri);
            var counters = new io.lettuce.core.api.sync.RedisCommands[threads];
            var connections = new io.lettuce.core.api.StatefulRedisConnection[threads];
            for (int i = 0; i < threads; i++) {
                connections[i] = client.connect();
                counters[i] = connections[i].sync();
            }
            Lock lock = lib.lock(name);
            lock.lock();
            lock.unlock();
            long wait = startAt - System.currentTimeMillis();
            if (wait > 0) {
                Thread.sleep(wait);
            }
            long cpu0 = cpuNanos();
            Load.Result result = Load.run(threads, duration, thread -> {
                @SuppressWarnings("unchecked")
                io.lettuce.core.api.sync.RedisCommands<String, String> redis = counters[thread];
                lock.lock();
                try {
                    String value = redis.get(name + ":counter");
                    redis.set(name + ":counter", Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                } finally {
                    lock.unlock();
                }
                return true;
            });
            long cpu = cpuNanos() - cpu0;
            if (result.failure() != null) {
                result.failure().printStackTrace();
                System.exit(1);
            }
            ByteBuffer buffer = ByteBuffer.allocate(result.main().getNeededByteBufferCapacity());
            int size = result.main().encodeIntoCompressedByteBuffer(buffer);
            byte[] bytes = new byte[size];
            buffer.flip();
            buffer.get(bytes);
            System.out.println("RESULT " + result.ops() + " " + cpu + " " + Base64.getEncoder().encodeToString(bytes));
            for (var c : connections) {
                c.close();
            }
            client.shutdown();
        }
        System.exit(0);
    }

    static long cpuNanos() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }

    static Histogram decode(String base64) throws Exception {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
    }
}
