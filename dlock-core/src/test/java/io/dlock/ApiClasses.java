package io.dlock;

import java.io.File;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The classes of the API packages ({@code io.dlock}, {@code io.dlock.metrics}), nested ones included. */
final class ApiClasses {
    private ApiClasses() {
    }

    /** @return every class compiled into the API packages, found on disk (the tests run on the class directories) */
    static List<Class<?>> all() throws URISyntaxException, ClassNotFoundException {
        File dir = new File(Objects.requireNonNull(LockClient.class.getResource("LockClient.class")).toURI())
                .getParentFile();
        List<Class<?>> classes = new ArrayList<>();
        addClasses(classes, dir, "io.dlock.");
        addClasses(classes, new File(dir, "metrics"), "io.dlock.metrics.");
        return classes;
    }

    private static void addClasses(List<Class<?>> classes, File dir, String packagePrefix)
            throws ClassNotFoundException {
        for (String file : Objects.requireNonNull(dir.list(), dir.toString())) {
            if (file.endsWith(".class") && !file.equals("package-info.class")) {
                classes.add(Class.forName(packagePrefix + file.substring(0, file.length() - 6)));
            }
        }
    }
}
