package io.dlock.spring;

import io.dlock.LockClient;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Application contexts that play instances of one service: each has its own {@link LockClient} bean on the same
 * Redis, the shared test objects given, and the configuration classes given. Closes them all.
 */
final class Instances implements AutoCloseable {
    private final String redisUri;
    private final List<AnnotationConfigApplicationContext> started = new ArrayList<>();

    Instances(String redisUri) {
        this.redisUri = redisUri;
    }

    /**
     * @param shared beans registered as they are (the same objects in every instance)
     */
    AnnotationConfigApplicationContext start(Map<String, Object> properties, List<Object> shared,
                                             Class<?>... configs) {
        return start(null, properties, shared, configs);
    }

    /**
     * @param classLoader the context's class loader (for beans of classes it loads), or null for the default
     */
    AnnotationConfigApplicationContext start(ClassLoader classLoader, Map<String, Object> properties,
                                             List<Object> shared, Class<?>... configs) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        if (classLoader != null) {
            context.setClassLoader(classLoader);
        }
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", properties));
        context.registerBean(LockClient.class, () -> LockClient.connect(redisUri),
                definition -> definition.setDestroyMethodName("close"));
        for (Object bean : shared) {
            register(context, bean);
        }
        context.register(configs);
        started.add(context);
        context.refresh();
        return context;
    }

    AnnotationConfigApplicationContext start(List<Object> shared, Class<?>... configs) {
        return start(Map.of(), shared, configs);
    }

    /**
     * Starts an instance of {@code beans} with {@link EnableDistributedLocking}, which must fail.
     *
     * @return the root cause of the failure
     */
    static Throwable startupFailure(String redisUri, ClassLoader classLoader, Class<?>... beans) {
        try (Instances instances = new Instances(redisUri)) {
            List<Class<?>> configs = new ArrayList<>(List.of(beans));
            configs.add(Enabled.class);
            instances.start(classLoader, Map.of(), List.of(), configs.toArray(Class<?>[]::new));
        } catch (RuntimeException e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return root;
        }
        throw new AssertionError("the context started with " + List.of(beans));
    }

    static Throwable startupFailure(String redisUri, Class<?>... beans) {
        return startupFailure(redisUri, null, beans);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking
    public static class Enabled {
    }

    @SuppressWarnings("unchecked")
    private static <T> void register(AnnotationConfigApplicationContext context, T bean) {
        context.registerBean((Class<T>) bean.getClass(), () -> bean);
    }

    @Override
    public void close() {
        for (AnnotationConfigApplicationContext context : started) {
            context.close();
        }
    }
}
