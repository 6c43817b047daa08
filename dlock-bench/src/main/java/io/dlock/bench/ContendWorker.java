package io.dlock.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A child JVM of the 2-JVM scenarios ({@link TwoJvms}): {@code threads} threads of one client cycle on one lock for
 * {@code millis}, starting at {@code startAtEpochMillis}. An exclusive section increments the counter
 * {@code <lockName>:counter} kept in Redis with a non-atomic GET then SET, so the counter equals the exclusive
 * sections of both JVMs only if the lock excluded. Prints one line on stdout:
 * {@code RESULT <ops> <cpuNanos> <base64 main histogram> <base64 extra histogram>}.
 *
 * <p>Arguments: mode library uri lockName threads millis startAtEpochMillis
 */
public final class ContendWorker {

    /** What each operation of a worker thread does. */
    enum Mode {
        /** S4: lock+unlock of a plain lock around the counter increment; all operations in the main histogram. */
        PLAIN,
        /** S5J: the same on a fair lock. */
        FAIR,
        /**
         * S7J: on a read-write lock, 1 operation in 10 a write (write lock around the counter increment, latency in
         * the extra histogram), the others a read (read lock around a GET of the counter, main histogram).
         */
        READ_WRITE
    }

    private ContendWorker() {
    }

    public static void main(String[] args) throws Exception {
        Mode mode = Mode.valueOf(args[0]);
        String library = args[1];
        String uri = args[2];
        String name = args[3];
        int threads = Integer.parseInt(args[4]);
        Duration duration = Duration.ofMillis(Long.parseLong(args[5]));
        long startAt = Long.parseLong(args[6]);
        String counter = name + ":counter";
        try (Library lib = Library.open(library, uri, Duration.ofSeconds(30))) {
            RedisClient client = RedisClient.create(uri);
            List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
            List<RedisCommands<String, String>> redis = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                connections.add(client.connect());
                redis.add(connections.get(i).sync());
            }
            Lock exclusive = switch (mode) {
                case PLAIN -> lib.lock(name);
                case FAIR -> lib.fairLock(name);
                case READ_WRITE -> null;
            };
            ReadWriteLock rw = mode == Mode.READ_WRITE ? lib.readWriteLock(name) : null;
            Lock warm = exclusive != null ? exclusive : rw.writeLock();
            warm.lock();
            warm.unlock();
            long wait = startAt - System.currentTimeMillis();
            if (wait > 0) {
                Thread.sleep(wait);
            }
            long cpu0 = cpuNanos();
            Load.Result result = Load.run(threads, duration, thread -> {
                RedisCommands<String, String> commands = redis.get(thread);
                if (exclusive != null) {
                    increment(exclusive, commands, counter);
                    return true;
                }
                if (ThreadLocalRandom.current().nextInt(10) == 0) {
                    increment(rw.writeLock(), commands, counter);
                    return false;
                }
                rw.readLock().lock();
                try {
                    commands.get(counter);
                } finally {
                    rw.readLock().unlock();
                }
                return true;
            });
            long cpu = cpuNanos() - cpu0;
            if (result.failure() != null) {
                result.failure().printStackTrace();
                System.exit(1);
            }
            System.out.println("RESULT " + result.ops() + " " + cpu + " " + encode(result.main()) + " "
                    + encode(result.extra()));
            connections.forEach(StatefulRedisConnection::close);
            client.shutdown();
        }
        System.exit(0);
    }

    /** The exclusive section: a non-atomic GET then SET of the counter, under {@code lock}. */
    private static void increment(Lock lock, RedisCommands<String, String> redis, String counter) {
        lock.lock();
        try {
            String value = redis.get(counter);
            redis.set(counter, Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
        } finally {
            lock.unlock();
        }
    }

    static long cpuNanos() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }

    private static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int size = histogram.encodeIntoCompressedByteBuffer(buffer);
        byte[] bytes = new byte[size];
        buffer.flip();
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    static Histogram decode(String base64) throws Exception {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
    }
}
