package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The javax jar is what a Tomcat 9 or Jetty 10 user loads: no class in it may still name a
 * {@code jakarta} type or string (the transformation missed it, and the class would fail with
 * {@code NoClassDefFoundError} on the first request that reaches it, perhaps a rare path no
 * contract exercises), and its module must read the Servlet 4.0 API, under a name of its own.
 * Reads the compiled classes, not the sources.
 */
class JavaxArtifactTest {

    private static final byte[] JAKARTA = "jakarta".getBytes(StandardCharsets.US_ASCII);

    @Test
    void everyClass_namesNoJakartaTypeOrString() throws IOException {
        Path classes = classesOf(SluiceFilter.class);
        List<String> offenders;
        List<Path> classFiles;
        try (Stream<Path> files = Files.walk(classes)) {
            classFiles = files.filter(f -> f.toString().endsWith(".class")).toList();
        }
        offenders = classFiles.stream().filter(JavaxArtifactTest::mentionsJakarta)
                .map(f -> classes.relativize(f).toString()).toList();

        assertTrue(classFiles.size() > 5, "no classes found under " + classes + ": " + classFiles);
        assertEquals(List.of(), offenders, "classes of the javax build that still mention jakarta");
    }

    @Test
    void moduleDescriptor_isTheJavaxModule_readingServlet40() throws IOException {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(classesOf(SluiceFilter.class).resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        Set<String> requires = module.requires().stream().map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toSet());

        assertEquals("io.github.sluice.servlet.javax", module.name());
        assertTrue(requires.contains("java.servlet"), "requires " + requires);
        assertEquals(Set.of("io.github.sluice.servlet"),
                module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
    }

    /** The directory (target/classes) the main classes were loaded from. */
    static Path classesOf(Class<?> type) {
        try {
            Path location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
            assertTrue(Files.isDirectory(location), "expected the main classes as a directory, got " + location);
            return location;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean mentionsJakarta(Path classFile) {
        try {
            byte[] bytes = Files.readAllBytes(classFile);
            outer:
            for (int i = 0; i + JAKARTA.length <= bytes.length; i++) {
                for (int j = 0; j < JAKARTA.length; j++) {
                    if (bytes[i + j] != JAKARTA[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        } catch (IOException e) {
            throw new IllegalStateException(classFile.toString(), e);
        }
    }
}
