package io.dlock.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads for a bench compiled for Java 17: {@code Thread.ofVirtual()} is looked up at run time, so the
 * module builds and runs on 17 and the virtual-thread scenarios run only where the JVM has them (21 and later; 19 and
 * 20 had them as a preview, which this bench does not enable).
 */
final class VirtualThreads {
    /** The first Java release with virtual threads as a final feature. */
    static final int FIRST_RELEASE = 21;

    private static final MethodHandle OF_VIRTUAL;
    private static final MethodHandle NAME;
    private static final MethodHandle FACTORY;

    static {
        MethodHandle ofVirtual = null;
        MethodHandle name = null;
        MethodHandle factory = null;
        if (Runtime.version().feature() >= FIRST_RELEASE) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> builder = Class.forName("java.lang.Thread$Builder");
                Class<?> virtualBuilder = Class.forName("java.lang.Thread$Builder$OfVirtual");
                ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(virtualBuilder));
                name = lookup.findVirtual(builder, "name", MethodType.methodType(builder, String.class, long.class));
                factory = lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        OF_VIRTUAL = ofVirtual;
        NAME = name;
        FACTORY = factory;
    }

    private VirtualThreads() {
    }

    /** @return why this JVM cannot run virtual threads, or null when it can */
    static String unavailable() {
        if (OF_VIRTUAL != null) {
            return null;
        }
        return "virtual threads need JDK " + FIRST_RELEASE + "+, this JVM is Java " + System.getProperty("java.version")
                + " (" + System.getProperty("java.home") + "); run the bench with a JDK " + FIRST_RELEASE
                + "+ java to include it";
    }

    /**
     * @param prefix the threads' names are {@code prefix0}, {@code prefix1}, ...
     * @return a factory of unstarted virtual threads
     * @throws UnsupportedOperationException when {@link #unavailable()} is not null
     */
    static ThreadFactory factory(String prefix) {
        if (OF_VIRTUAL == null) {
            throw new UnsupportedOperationException(unavailable());
        }
        try {
            Object builder = OF_VIRTUAL.invoke();
            builder = NAME.invoke(builder, prefix, 0L);
            return (ThreadFactory) FACTORY.invoke(builder);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
