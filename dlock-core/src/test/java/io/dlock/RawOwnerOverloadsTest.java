package io.dlock;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One way to name an owner (issue 28): {@link DistributedLock#as(LockOwner)}. Every public method of the API packages
 * that takes the owner of its operation as a raw {@code long} is {@code @Deprecated(since = "0.1", forRemoval = true)},
 * and its Javadoc's {@code @deprecated} tag names the view to use instead, so that no new raw overload slips in. Two
 * independent rules find such methods:
 *
 * <ul>
 *   <li><b>By name</b>, in the sources: a parameter {@code long ownerId} or {@code long threadId} (parameter names are
 *       not in the class files). Records ({@link HeldLock#ownerId()}, {@link LockInfo.Holder#threadId()}) and their
 *       other constructors are data, not methods; a listener's callback ({@link LockEventListener#acquisitionStarted})
 *       is told an owner, it does not act for one: neither is counted.</li>
 *   <li><b>By shape</b>, by reflection: a method whose last parameter is a {@code long} beside a method of the same
 *       type that takes the other parameters, named the same ({@code unlockAsync(long)} beside {@code unlockAsync()})
 *       or with {@code Thread} for {@code CurrentThread} ({@code isHeldByThread(long)} beside
 *       {@code isHeldByCurrentThread()}): the same operation, for an owner given as a number.</li>
 * </ul>
 */
class RawOwnerOverloadsTest {
    /**
     * The raw-owner forms there are, all deprecated; each rule must find every one of them (a check of the rules
     * themselves), and the rule by shape nothing else: no new one is to be added, deprecated or not.
     */
    private static final Set<String> KNOWN = Set.of(
            "DistributedLockAsync.lockAsync(long,TimeUnit,long)",
            "DistributedLockAsync.tryLockAsync(long,long,TimeUnit,long)",
            "DistributedLockAsync.unlockAsync(long)",
            "DistributedLockAsync.getHoldCountAsync(long)",
            "DistributedLockAsync.isHeldByThreadAsync(long)",
            "DistributedLock.isHeldByThread(long)");

    /** A parameter (not a local variable: a comma or the closing parenthesis follows). */
    private static final Pattern RAW_OWNER_PARAMETER = Pattern.compile("\\blong\\s+(?:ownerId|threadId)\\s*[,)]");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+([\\w.]+)\\.(\\w+);");

    @Test
    void everyMethodTakingALongOwnerIdOrThreadIdIsDeprecatedForRemoval() throws Exception {
        Map<String, Method> found = new TreeMap<>();
        List<String> violations = new ArrayList<>();
        for (Class<?> api : ApiClasses.all()) {
            if (api.getEnclosingClass() != null || !Modifier.isPublic(api.getModifiers())) {
                continue; // nested types are read with their top-level type's file; package-private ones are no API
            }
            String source = Files.readString(sourceOf(api));
            String code = withoutComments(source);
            Matcher parameter = RAW_OWNER_PARAMETER.matcher(code);
            while (parameter.find()) {
                int open = code.lastIndexOf('(', parameter.start());
                int close = code.indexOf(')', parameter.start());
                Matcher name = Pattern.compile("(\\w+)\\s*$").matcher(code.substring(0, open));
                assertThat(name.find()).as("a name before the parameter list at %d of %s", open, api).isTrue();
                String before = code.substring(0, name.start()).strip();
                if (before.endsWith("record") || isRecord(api, name.group(1))) {
                    continue; // a record's components, or another constructor of the record: data
                }
                Method method = declared(api, name.group(1), parameterTypes(code.substring(open + 1, close), source));
                if (method.getDeclaringClass().getSimpleName().endsWith("Listener")) {
                    continue; // a callback that is told the owner
                }
                found.put(signature(method), method);
                String javadoc = javadocBefore(source, name.start());
                if (!javadoc.contains("@deprecated") || !javadoc.contains("as(LockOwner.")) {
                    violations.add(signature(method) + ": no @deprecated tag that names the view as(LockOwner...)");
                }
            }
        }
        found.values().forEach(m -> checkDeprecatedForRemoval(m, violations));
        assertThat(found.keySet()).as("found by parameter name").containsAll(KNOWN);
        assertThat(violations).isEmpty();
    }

    @Test
    void everyOverloadThatAddsALongOwnerToAnOperationIsDeprecatedForRemoval() throws Exception {
        Map<String, Method> found = new TreeMap<>();
        for (Class<?> api : ApiClasses.all()) {
            if (!Modifier.isPublic(api.getModifiers())) {
                continue;
            }
            for (Method m : api.getMethods()) {
                if (m.getDeclaringClass() == Object.class || !isRawOwnerOverload(api, m)) {
                    continue;
                }
                found.put(signature(m), m);
            }
        }
        List<String> violations = new ArrayList<>();
        found.values().forEach(m -> checkDeprecatedForRemoval(m, violations));
        assertThat(found.keySet()).as("found by shape").containsExactlyInAnyOrderElementsOf(KNOWN);
        assertThat(violations).isEmpty();
    }

    private static boolean isRawOwnerOverload(Class<?> api, Method m) {
        Class<?>[] types = m.getParameterTypes();
        if (types.length == 0 || types[types.length - 1] != long.class) {
            return false;
        }
        Class<?>[] without = Arrays.copyOf(types, types.length - 1);
        Set<String> names = new TreeSet<>(List.of(m.getName()));
        if (m.getName().contains("Thread") && !m.getName().contains("CurrentThread")) {
            names.add(m.getName().replace("Thread", "CurrentThread"));
        }
        for (String name : names) {
            try {
                api.getMethod(name, without);
                return true;
            } catch (NoSuchMethodException e) {
                // not this one
            }
        }
        return false;
    }

    private static void checkDeprecatedForRemoval(Method m, List<String> violations) {
        Deprecated deprecated = m.getAnnotation(Deprecated.class);
        if (deprecated == null || !deprecated.forRemoval() || !deprecated.since().equals("0.1")) {
            violations.add(signature(m) + ": not @Deprecated(since = \"0.1\", forRemoval = true)");
        }
    }

    private static String signature(Method m) {
        return m.getDeclaringClass().getSimpleName() + "." + m.getName() + "("
                + String.join(",", Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
    }

    /** @return the source file of a top-level API type, in this module's {@code src/main/java} */
    private static Path sourceOf(Class<?> api) throws Exception {
        File classes = new File(Objects.requireNonNull(LockClient.class.getResource("LockClient.class")).toURI())
                .getParentFile().getParentFile().getParentFile(); // target/classes
        Path module = classes.toPath().getParent().getParent();
        Path source = module.resolve("src/main/java").resolve(api.getName().replace('.', '/') + ".java");
        assertThat(source).as("the source of %s", api).exists();
        return source;
    }

    /** @return {@code source} with every comment blanked out, offsets kept */
    private static String withoutComments(String source) {
        StringBuilder code = new StringBuilder(source);
        Matcher comment = Pattern.compile("(?s)/\\*.*?\\*/|//[^\\n]*").matcher(source);
        while (comment.find()) {
            for (int i = comment.start(); i < comment.end(); i++) {
                if (code.charAt(i) != '\n') {
                    code.setCharAt(i, ' ');
                }
            }
        }
        return code.toString();
    }

    /** @return the Javadoc right before the declaration that contains {@code at} (its annotations between), or "" */
    private static String javadocBefore(String source, int at) {
        int end = source.lastIndexOf("*/", at);
        int start = source.lastIndexOf("/**", at);
        if (end < 0 || start < 0 || start > end) {
            return "";
        }
        String between = source.substring(end + 2, at);
        return between.contains(";") || between.contains("{") || between.contains("}") ? ""
                : source.substring(start, end);
    }

    /** @return the types of a parameter list as written, resolved against the file's imports */
    private static Class<?>[] parameterTypes(String parameters, String source) throws ClassNotFoundException {
        List<Class<?>> types = new ArrayList<>();
        for (String parameter : parameters.split(",")) {
            String[] words = parameter.replaceAll("@\\w+", "").replace("final ", "").strip().split("\\s+");
            types.add(resolve(words[0].replaceAll("<.*", ""), source));
        }
        return types.toArray(Class<?>[]::new);
    }

    private static Class<?> resolve(String simpleName, String source) throws ClassNotFoundException {
        Map<String, Class<?>> primitives = Map.of("long", long.class, "int", int.class, "boolean", boolean.class,
                "double", double.class);
        if (primitives.containsKey(simpleName)) {
            return primitives.get(simpleName);
        }
        Matcher imported = IMPORT.matcher(source);
        while (imported.find()) {
            if (imported.group(2).equals(simpleName)) {
                return Class.forName(imported.group(1) + "." + simpleName);
            }
        }
        try {
            return Class.forName("io.dlock." + simpleName);
        } catch (ClassNotFoundException e) {
            return Class.forName("java.lang." + simpleName);
        }
    }

    /** @return whether {@code name} is {@code api} or one of its nested types, and that type is a record */
    private static boolean isRecord(Class<?> api, String name) {
        List<Class<?>> types = new ArrayList<>(List.of(api));
        for (int i = 0; i < types.size(); i++) {
            Class<?> type = types.get(i);
            if (type.getSimpleName().equals(name)) {
                return type.isRecord();
            }
            types.addAll(List.of(type.getDeclaredClasses()));
        }
        return false;
    }

    /** @return the method {@code name(types)} declared by {@code api} or one of its nested types */
    private static Method declared(Class<?> api, String name, Class<?>[] types) {
        List<Class<?>> candidates = new ArrayList<>(List.of(api));
        for (int i = 0; i < candidates.size(); i++) {
            Class<?> type = candidates.get(i);
            try {
                return type.getDeclaredMethod(name, types);
            } catch (NoSuchMethodException e) {
                candidates.addAll(List.of(type.getDeclaredClasses()));
            }
        }
        throw new AssertionError(api.getSimpleName() + " declares no " + name + Arrays.toString(types));
    }
}
