package io.dlock.redisprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

/**
 * BouncyCastle is an optional dependency: without it, asking for TLS fails saying what to add. The classes of this
 * module are loaded again in a class loader that sees them and SLF4J only, as in an application (the CLI) that does
 * not depend on BouncyCastle.
 */
class TlsWithoutBouncyCastleTest {

    @TempDir
    Path tmp;

    @Test
    void generatingCertificatesNamesTheMissingArtifact() throws Exception {
        try (URLClassLoader loader = withoutBouncyCastle()) {
            assertThatThrownBy(() -> loader.loadClass("org.bouncycastle.cert.X509v3CertificateBuilder"))
                    .isInstanceOf(ClassNotFoundException.class);
            Class<?> certificates = loader.loadClass(TlsCertificates.class.getName());
            Method generate = certificates.getMethod("generate", Path.class);
            assertThatThrownBy(() -> invoke(generate, null, tmp))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("add org.bouncycastle:bcpkix-jdk18on to generate test certificates");
            assertThat(tmp).isEmptyDirectory();
        }
    }

    @Test
    void aTlsServerIsRefusedBeforeAnythingStarts() throws Exception {
        try (URLClassLoader loader = withoutBouncyCastle()) {
            Class<?> server = loader.loadClass(RedisServer.class.getName());
            Class<?> clientAuth = loader.loadClass(RedisServer.ClientAuth.class.getName());
            Object builder = server.getMethod("builder").invoke(null);
            Object yes = clientAuth.getField("YES").get(null);
            builder.getClass().getMethod("tls", clientAuth).invoke(builder, yes);
            Method start = builder.getClass().getMethod("start");
            assertThatThrownBy(() -> invoke(start, builder))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("org.bouncycastle:bcpkix-jdk18on");
        }
    }

    private static URLClassLoader withoutBouncyCastle() {
        return new URLClassLoader(new URL[] {location(TlsCertificates.class), location(Logger.class)},
                ClassLoader.getPlatformClassLoader());
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    /** Invokes reflectively, rethrowing what the method threw. */
    private static Object invoke(Method method, Object target, Object... args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
