package io.dlock.it;

import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import javax.xml.parsers.DocumentBuilderFactory;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a build depending on dlock gets: the jars of the modules users depend on carry their module names, as the JDK
 * reads them on the module path, and the BOM ({@code dlock-bom}, a pom without parent) has the project's version and
 * manages the user modules at that version. No Redis here: the jars are the ones this build packaged (failsafe runs
 * after {@code package}, so the reactor puts {@code dlock-core/target/dlock-core-*.jar} on the class path).
 * System properties set by dlock-it's pom: {@code dlock.it.projectVersion}, {@code dlock.it.rootDir}.
 */
class PublishedArtifactsIT {

    @Test
    void theJarsOfTheUserModulesCarryTheirAutomaticModuleNames() throws Exception {
        assertThat(moduleNameOfTheJarOf(LockClient.class)).isEqualTo("io.dlock.core");
        assertThat(moduleNameOfTheJarOf(RedisServer.class)).isEqualTo("io.dlock.redisprocess");
        assertThat(moduleNameOfTheJarOf(RedisExtension.class)).isEqualTo("io.dlock.testkit");
    }

    @Test
    void theBomHasTheProjectVersionNoParentAndManagesEveryUserModuleAtItsOwnVersion() throws Exception {
        String projectVersion = System.getProperty("dlock.it.projectVersion");
        assertThat(projectVersion).as("system property dlock.it.projectVersion (set by dlock-it's pom)").isNotBlank();
        Path bom = rootDir().resolve("dlock-bom/pom.xml");
        assertThat(bom).isRegularFile();
        Element project = parse(bom).getDocumentElement();

        assertThat(child(project, "parent"))
                .as("dlock-bom must not inherit dlock-parent: users importing it would get the parent's managed deps")
                .isNull();
        assertThat(text(project, "groupId")).isEqualTo("io.dlock");
        assertThat(text(project, "packaging")).isEqualTo("pom");
        assertThat(text(project, "version"))
                .as("dlock-bom's version follows the parent's (mvn versions:set -DnewVersion=X -DprocessAllModules)")
                .isEqualTo(projectVersion);

        List<String> managed = new ArrayList<>();
        Element dependencies = child(child(project, "dependencyManagement"), "dependencies");
        for (Node n = dependencies.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element dependency) {
                assertThat(text(dependency, "groupId")).isEqualTo("io.dlock");
                assertThat(text(dependency, "version")).as(text(dependency, "artifactId"))
                        .isEqualTo("${project.version}");
                managed.add(text(dependency, "artifactId"));
            }
        }
        assertThat(managed).contains("dlock-core", "dlock-redis-process", "dlock-testkit", "dlock-reactor",
                        "dlock-spring", "dlock-spring-boot-starter")
                .doesNotHaveDuplicates();
    }

    /** The module name the JDK gives the jar holding {@code type} on the module path. */
    private static String moduleNameOfTheJarOf(Class<?> type) throws URISyntaxException {
        Path location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        assumeTrue(Files.isRegularFile(location),
                type.getName() + " comes from " + location + ", not from a jar (run through mvn verify)");
        Set<ModuleReference> modules = ModuleFinder.of(location).findAll();
        assertThat(modules).as(location.toString()).hasSize(1);
        ModuleReference module = modules.iterator().next();
        assertThat(module.descriptor().isAutomatic()).as(location + " has no module-info").isTrue();
        return module.descriptor().name();
    }

    private static Path rootDir() {
        String property = System.getProperty("dlock.it.rootDir");
        assertThat(property).as("system property dlock.it.rootDir (set by dlock-it's pom)").isNotBlank();
        return Path.of(property);
    }

    private static Document parse(Path file) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(file.toFile());
    }

    private static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        assertThat(e).as("<" + name + "> in <" + parent.getTagName() + ">").isNotNull();
        return e.getTextContent().strip();
    }
}
