package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock names that refer to parameters by name need the names in the class file ({@code javac -parameters}); without
 * them {@code #orderId} is null in every call and all orders would share the lock {@code orders:}. This module's own
 * classes are compiled with {@code -parameters}, so the test compiles its service at run time with the JDK's compiler,
 * once without the names (refused when the proxy is created) and once with them (one lock per order).
 */
@ExtendWith(RedisExtension.class)
class ParameterNamesIT {

    private static final String SOURCE = """
            package gen;

            import io.dlock.spring.DistributedLocked;
            import io.dlock.spring.WhenBusy;

            public class Payments {
                @DistributedLocked(name = "orders:#{#orderId}", whenBusy = WhenBusy.SKIP)
                public String pay(long orderId) {
                    return "paid " + orderId;
                }
            }
            """;

    @TempDir
    Path dir;

    /** Compiles {@link #SOURCE} into {@code dir/out} and loads it with a class loader below the test's. */
    private ClassLoader compile(String out, boolean parameterNames) throws IOException, URISyntaxException {
        Path sources = Files.createDirectories(dir.resolve("src/gen"));
        Path source = Files.writeString(sources.resolve("Payments.java"), SOURCE);
        Path classes = Files.createDirectories(dir.resolve(out));
        List<String> arguments = new ArrayList<>(List.of("-d", classes.toString(), "-classpath",
                location(DistributedLocked.class) + File.pathSeparator + location(LockKind.class)));
        if (parameterNames) {
            arguments.add("-parameters");
        }
        arguments.add(source.toString());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int status = javac.run(null, messages, messages, arguments.toArray(String[]::new));
        assertThat(status).as("javac: %s", messages.toString(StandardCharsets.UTF_8)).isZero();
        return new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
    }

    private static String location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    @Test
    void aNameThatRefersToParametersWithoutTheirNamesInTheClassFileFailsTheStartUp(RedisServer redis)
            throws Exception {
        ClassLoader loader = compile("without", false);
        Class<?> payments = loader.loadClass("gen.Payments");
        assertThat(payments.getMethod("pay", long.class).getParameters()[0].isNamePresent()).isFalse();

        assertThat(Instances.startupFailure(redis.uri(), loader, payments))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedLocked on Payments.pay(long)")
                .hasMessageContaining("refers to #orderId, but the parameter names of gen.Payments are not in its "
                        + "class file")
                .hasMessageContaining("javac -parameters")
                .hasMessageContaining("#p0");
    }

    @Test
    void withTheNamesEachOrderHasItsLock(RedisServer redis, LockClient observer) throws Exception {
        ClassLoader loader = compile("with", true);
        Class<?> payments = loader.loadClass("gen.Payments");
        try (Instances instances = new Instances(redis.uri())) {
            Object bean = instances.start(loader, Map.of(), List.of(), Instances.Enabled.class, payments)
                    .getBean(payments);
            Method pay = bean.getClass().getMethod("pay", long.class);
            DistributedLock order1 = observer.getLock("orders:1");
            order1.lock();
            try {
                assertThat(pay.invoke(bean, 1L)).as("order 1 is busy: skipped").isNull();
                assertThat(pay.invoke(bean, 2L)).isEqualTo("paid 2");
            } finally {
                order1.unlock();
            }
            assertThat(pay.invoke(bean, 1L)).isEqualTo("paid 1");
        }
    }

    public static class PastTheLast {
        @DistributedLocked(name = "orders:#{#p1}")
        public void pastTheLast(long orderId) {
        }
    }

    public static class Misspelt {
        @DistributedLocked(name = "orders:#{#orderID}")
        public void pay(long orderId) {
        }
    }

    @Test
    void aMisspeltNameOrAPositionPastTheLastParameterFailsTheStartUp(RedisServer redis) {
        assertThat(Instances.startupFailure(redis.uri(), PastTheLast.class))
                .hasMessageContaining("@DistributedLocked on PastTheLast.pastTheLast(long)")
                .hasMessageContaining("refers to #p1, but the method has 1 parameter");
        assertThat(Instances.startupFailure(redis.uri(), Misspelt.class))
                .hasMessageContaining("@DistributedLocked on Misspelt.pay(long)")
                .hasMessageContaining("refers to #orderID, which is not a parameter of the method (its parameters: "
                        + "#orderId)");
    }
}
