package io.dlock;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API/internal split (in lieu of a {@code module-info}, which the build keeps off while Lettuce is an automatic
 * module): no public signature in the API packages ({@code io.dlock}, {@code io.dlock.metrics}) mentions an
 * {@code io.dlock.internal} type, so internals can change without breaking users.
 */
class ApiSplitTest {

    @Test
    void publicApiSignaturesMentionNoInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> api : apiClasses()) {
            if (!Modifier.isPublic(api.getModifiers())) {
                continue;
            }
            for (Method m : api.getDeclaredMethods()) {
                if (!Modifier.isPublic(m.getModifiers())) {
                    continue;
                }
                check(leaks, m.toGenericString(), m.getReturnType());
                Stream.of(m.getParameterTypes()).forEach(p -> check(leaks, m.toGenericString(), p));
            }
            for (Constructor<?> c : api.getDeclaredConstructors()) {
                if (Modifier.isPublic(c.getModifiers())) {
                    Stream.of(c.getParameterTypes()).forEach(p -> check(leaks, c.toGenericString(), p));
                }
            }
            if (api.isRecord()) {
                for (RecordComponent rc : api.getRecordComponents()) {
                    check(leaks, api.getName() + "." + rc.getName(), rc.getType());
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void theApiPackageHoldsTheDocumentedTypes() throws Exception {
        assertThat(apiClasses()).extracting(Class::getName).contains("io.dlock.LockClient",
                "io.dlock.LockClientConfig", "io.dlock.DistributedLock", "io.dlock.DistributedReadWriteLock",
                "io.dlock.FencedLock", "io.dlock.LockInfo", "io.dlock.LockException", "io.dlock.LeaseLostListener",
                "io.dlock.LeaseLostEvent", "io.dlock.LockKind", "io.dlock.LockEventListener",
                "io.dlock.LockEventListener$Hold", "io.dlock.Blocking", "io.dlock.metrics.LockMetrics",
                "io.dlock.LockOwner", "io.dlock.LockLostException", "io.dlock.TlsSettings", "io.dlock.TuningSettings",
                "io.dlock.RedisConnection", "io.dlock.InvalidSettingException", "io.dlock.NotALockException",
                "io.dlock.ConnectionFailedException", "io.dlock.ConnectionFailedException$Reason",
                "io.dlock.TlsSettings$Verification", "io.dlock.SemaphoreInfo", "io.dlock.SemaphoreInfo$PermitLease",
                "io.dlock.LatchInfo");
    }

    private static void check(List<String> leaks, String where, Class<?> type) {
        Class<?> t = type.isArray() ? type.getComponentType() : type;
        if (t.getName().startsWith("io.dlock.internal")) {
            leaks.add(where + " exposes " + t.getName());
        }
    }

    private static List<Class<?>> apiClasses() throws URISyntaxException, ClassNotFoundException {
        return ApiClasses.all();
    }
}
