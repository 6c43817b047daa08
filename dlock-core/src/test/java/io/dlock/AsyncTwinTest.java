package io.dlock;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every blocking method of the API has an asynchronous twin. The rule is read off the interfaces themselves, with no
 * list of method names:
 *
 * <ul>
 *   <li><b>Which interfaces.</b> Every public interface of the API packages that has an asynchronous method:
 *       {@link LockClient}, {@link DistributedLock}, {@link FencedLock} today ({@link DistributedReadWriteLock} has
 *       none: its sides are {@code DistributedLock}s; listener interfaces have none). Their public instance methods
 *       are examined, inherited ones included, each signature as its most specific interface declares it (so
 *       {@code Lock.lockInterruptibly} is seen as {@code DistributedLock} redeclares it).</li>
 *   <li><b>Asynchronous</b> methods are those that return a {@link CompletableFuture}. Each is named
 *       {@code <name>Async} and declares no exception; every method named {@code <name>Async} is asynchronous.</li>
 *   <li><b>Blocking</b> methods are those that (a) carry {@link Blocking}, or (b) declare
 *       {@link InterruptedException} (they wait), or (c) are named as an asynchronous method of the interface without
 *       its {@code Async} suffix ({@code tryLock} beside {@code tryLockAsync}: the blocking form of that
 *       operation, whichever overload).</li>
 *   <li><b>The twin.</b> Each blocking method {@code M} has a twin: the method named {@link Blocking#async()} when
 *       {@code M} gives one, else {@code M}'s name followed by {@code Async}, with exactly {@code M}'s parameter types,
 *       returning {@code CompletableFuture<B>}, {@code B} being {@code M}'s return type boxed ({@code Void} for
 *       {@code void}).</li>
 * </ul>
 * (b) and (c) read blocking from the signature, so that a method added without the annotation is held to the rule as
 * soon as it waits interruptibly or has an asynchronous form; (a) is how a blocking method without such a sign
 * ({@code isHeldByCurrentThread}, {@code inspect}) declares itself, and how a twin of another name is declared
 * ({@code lockInterruptibly}'s is {@code lockAsync}: cancelling the future is the async form of an interrupt). Async
 * methods without a blocking form (such as the overloads taking an explicit owner id) are allowed. Not covered:
 * static methods and the client's life cycle ({@code connect}, {@code create}, {@code close}), see {@link Blocking}.
 */
class AsyncTwinTest {

    @Test
    void everyBlockingMethodOfTheApiHasItsAsyncTwin() throws Exception {
        List<String> violations = new ArrayList<>();
        Set<String> checked = new TreeSet<>();
        for (Class<?> api : ApiClasses.all()) {
            if (api.isInterface() && Modifier.isPublic(api.getModifiers()) && hasAsyncMethods(api)) {
                checked.add(api.getSimpleName());
                violations.addAll(violations(api));
            }
        }
        assertThat(checked).as("interfaces checked").contains("LockClient", "DistributedLock", "FencedLock");
        assertThat(violations).isEmpty();
    }

    @Test
    void theBlockingMethodsAreMarked() throws Exception {
        // the methods that wait for Redis without a sign in their signature, and so need the annotation to be checked
        assertThat(DistributedLock.class.getMethod("isHeldByCurrentThread").isAnnotationPresent(Blocking.class))
                .isTrue();
        assertThat(DistributedLock.class.getMethod("getHoldCount").isAnnotationPresent(Blocking.class)).isTrue();
        assertThat(LockClient.class.getMethod("inspect", String.class).isAnnotationPresent(Blocking.class)).isTrue();
        assertThat(LockClient.class.getMethod("inspectSemaphore", String.class).isAnnotationPresent(Blocking.class))
                .isTrue();
        assertThat(LockClient.class.getMethod("inspectCountDownLatch", String.class)
                .isAnnotationPresent(Blocking.class)).isTrue();
        assertThat(DistributedLock.class.getMethod("lockInterruptibly").getAnnotation(Blocking.class).async())
                .isEqualTo("lockAsync");
        // and the ones that never wait are not
        assertThat(DistributedLock.class.getMethod("leaseValidFor").isAnnotationPresent(Blocking.class)).isFalse();
        assertThat(FencedLock.class.getMethod("getToken").isAnnotationPresent(Blocking.class)).isFalse();
    }

    /** Broken on purpose: each method below breaks the rule once. */
    @SuppressWarnings("unused")
    interface Broken {
        @Blocking
        int count();                                     // no countAsync

        boolean tryIt(long wait, TimeUnit unit) throws InterruptedException; // no tryItAsync

        void open(String name);                          // blocking by (c): openAsync takes other parameters

        CompletableFuture<Void> openAsync(int id);

        long size();                                     // blocking by (c): sizeAsync returns the wrong type

        CompletableFuture<Integer> sizeAsync();

        @Blocking(async = "startAsync")
        void begin(int a);                               // the named twin does not exist

        CompletableFuture<Void> refresh();               // async but not named so

        String peekAsync();                              // named async but is not

        CompletableFuture<Boolean> pokeAsync() throws InterruptedException; // an async method that throws

        String name();                                   // fine: not blocking

        @Blocking
        void close();                                    // fine: has its twin

        CompletableFuture<Void> closeAsync();
    }

    @Test
    void theRuleFindsEachKindOfViolation() {
        assertThat(violations(Broken.class)).containsExactlyInAnyOrder(
                "Broken.count(): blocking, but has no twin countAsync()",
                "Broken.tryIt(long,TimeUnit): blocking, but has no twin tryItAsync(long,TimeUnit)",
                "Broken.open(String): blocking, but has no twin openAsync(String)",
                "Broken.size(): its twin sizeAsync() returns CompletableFuture<Integer>, not CompletableFuture<Long>",
                "Broken.begin(int): blocking, but has no twin startAsync(int)",
                "Broken.refresh(): returns a CompletableFuture, so its name must end in Async",
                "Broken.peekAsync(): named ...Async, so it must return a CompletableFuture",
                "Broken.pokeAsync(): asynchronous, so it must declare no exception");
    }

    private static boolean hasAsyncMethods(Class<?> api) {
        return methods(api).stream().anyMatch(m -> m.getReturnType() == CompletableFuture.class);
    }

    /** @return the rule's violations in {@code api}, one message each */
    static List<String> violations(Class<?> api) {
        List<Method> methods = methods(api);
        Set<String> asyncNames = methods.stream().map(Method::getName).filter(n -> n.endsWith("Async"))
                .collect(Collectors.toSet());
        List<String> violations = new ArrayList<>();
        for (Method m : methods) {
            String where = api.getSimpleName() + "." + signature(m.getName(), m.getParameterTypes());
            boolean async = m.getReturnType() == CompletableFuture.class;
            if (async && !m.getName().endsWith("Async")) {
                violations.add(where + ": returns a CompletableFuture, so its name must end in Async");
            }
            if (!async && m.getName().endsWith("Async")) {
                violations.add(where + ": named ...Async, so it must return a CompletableFuture");
            }
            if (async && m.getExceptionTypes().length > 0) {
                violations.add(where + ": asynchronous, so it must declare no exception");
            }
            if (async || !isBlocking(m, asyncNames)) {
                continue;
            }
            Blocking mark = m.getAnnotation(Blocking.class);
            String twinName = mark != null && !mark.async().isEmpty() ? mark.async() : m.getName() + "Async";
            Method twin = methods.stream().filter(t -> t.getName().equals(twinName)
                    && Arrays.equals(t.getParameterTypes(), m.getParameterTypes())).findFirst().orElse(null);
            if (twin == null) {
                violations.add(where + ": blocking, but has no twin " + signature(twinName, m.getParameterTypes()));
                continue;
            }
            Type expected = boxed(m.getGenericReturnType());
            Type actual = twin.getGenericReturnType();
            boolean matches = actual instanceof ParameterizedType p && p.getRawType() == CompletableFuture.class
                    && p.getActualTypeArguments()[0].equals(expected);
            if (!matches) {
                violations.add(where + ": its twin " + signature(twinName, m.getParameterTypes()) + " returns "
                        + name(actual) + ", not CompletableFuture<" + name(expected) + ">");
            }
        }
        return violations;
    }

    private static boolean isBlocking(Method m, Set<String> asyncNames) {
        return m.isAnnotationPresent(Blocking.class)
                || Arrays.asList(m.getExceptionTypes()).contains(InterruptedException.class)
                || asyncNames.contains(m.getName() + "Async");
    }

    /**
     * @return the public instance methods of {@code api}, inherited ones included, each signature once: as the most
     *         specific interface declares it
     */
    private static List<Method> methods(Class<?> api) {
        Map<String, List<Method>> bySignature = Arrays.stream(api.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .collect(Collectors.groupingBy(m -> signature(m.getName(), m.getParameterTypes())));
        List<Method> methods = new ArrayList<>();
        for (List<Method> declarations : bySignature.values()) {
            for (Method m : declarations) {
                boolean overridden = declarations.stream().anyMatch(other -> other != m
                        && m.getDeclaringClass().isAssignableFrom(other.getDeclaringClass())
                        && other.getDeclaringClass() != m.getDeclaringClass());
                if (!overridden) {
                    methods.add(m);
                }
            }
        }
        methods.sort((a, b) -> signature(a.getName(), a.getParameterTypes())
                .compareTo(signature(b.getName(), b.getParameterTypes())));
        return methods;
    }

    private static Type boxed(Type type) {
        if (!(type instanceof Class<?> c) || !c.isPrimitive()) {
            return type;
        }
        return c == void.class ? Void.class : c == boolean.class ? Boolean.class : c == int.class ? Integer.class
                : c == long.class ? Long.class : c == double.class ? Double.class : c == float.class ? Float.class
                : c == short.class ? Short.class : c == byte.class ? Byte.class : Character.class;
    }

    private static String signature(String name, Class<?>[] parameters) {
        return name + Arrays.stream(parameters).map(Class::getSimpleName).collect(Collectors.joining(",", "(", ")"));
    }

    private static String name(Type type) {
        return type instanceof Class<?> c ? c.getSimpleName()
                : type.getTypeName().replaceAll("[a-z][a-z0-9_]*\\.", "");
    }
}
