package io.dlock.spring;

import io.dlock.LockClient;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
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
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
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
