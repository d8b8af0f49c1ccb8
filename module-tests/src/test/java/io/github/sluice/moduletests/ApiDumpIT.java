package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of every published jar module is recorded, and {@code mvn verify} fails when it
 * changes without the record: each module's {@code api/<artifactId>.api} holds the public and
 * protected signatures of the public types of its exported packages (as {@code javap -protected}
 * prints them, sorted by type), in the way of Kotlin's binary-compatibility-validator.
 *
 * <ul>
 *   <li><b>The dump is current</b>: the API the build compiled equals the committed dump. After a
 *       deliberate change, {@code mvn -pl module-tests -am verify -Dsluice.api.update=true}
 *       rewrites the dumps; the diff of the {@code .api} files is what a reviewer reads.</li>
 *   <li><b>A break is announced</b>: each released version's dump is kept beside it
 *       ({@code api/<artifactId>-<version>.api}, copied when the version is cut). A signature of a
 *       released dump that the current dump lacks (removed, or changed incompatibly, which removes
 *       the old line) must be named, by its type's simple name, in a "Breaking" line of
 *       CHANGELOG.md's "Unreleased" section.</li>
 * </ul>
 *
 * <p>Exported packages are those a {@code module-info.java} exports; a module without one exports
 * every package but those with an {@code internal} segment. Types nested in a type that is not
 * API are not API either. An integration test (failsafe, verify phase): it reads the other
 * modules' {@code target/classes}, compiled by then.
 */
class ApiDumpIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final boolean UPDATE = Boolean.getBoolean("sluice.api.update");
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    @Test
    void everyPublishedJarModule_hasADumpEqualToItsCompiledApi() throws IOException {
        List<String> stale = new ArrayList<>();
        Map<String, Path> modules = jarModules();
        assertTrue(modules.keySet().containsAll(List.of("sluice-filter-core", "sluice-servlet", "sluice-jaxrs",
                "sluice-redis")), "published jar modules: " + modules.keySet());
        for (Map.Entry<String, Path> m : modules.entrySet()) {
            String api = dump(m.getValue());
            Path file = m.getValue().resolve("api").resolve(m.getKey() + ".api");
            String recorded = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
            if (api.equals(recorded)) {
                continue;
            }
            if (UPDATE) {
                Files.createDirectories(file.getParent());
                Files.writeString(file, api, StandardCharsets.UTF_8);
            } else {
                stale.add(ROOT.relativize(file) + (recorded == null ? " is missing" : " differs from the compiled API:\n"
                        + diff(recorded, api)));
            }
        }
        if (!stale.isEmpty()) {
            fail("The public API changed without its record. Review the change; if it is meant, run\n"
                    + "  mvn -B -pl module-tests -am verify -Dsluice.api.update=true\n"
                    + "and commit the .api files (a removal from a released API also needs a \"Breaking\" line in\n"
                    + "CHANGELOG.md).\n\n" + String.join("\n\n", stale));
        }
    }

    @Test
    void everySignatureRemovedFromAReleasedApi_isNamedInABreakingLine() throws IOException {
        String unreleased = unreleasedSection(Files.readString(ROOT.resolve("CHANGELOG.md"), StandardCharsets.UTF_8));
        List<String> breaking = new ArrayList<>();
        for (String line : unreleased.split("\n")) {
            if (line.contains("Breaking")) {
                breaking.add(line);
            }
        }
        List<String> unannounced = new ArrayList<>();
        for (Map.Entry<String, Path> m : jarModules().entrySet()) {
            Path dir = m.getValue().resolve("api");
            Path current = dir.resolve(m.getKey() + ".api");
            if (!Files.isDirectory(dir) || !Files.exists(current)) {
                continue;
            }
            Set<String> now = new LinkedHashSet<>(Files.readAllLines(current, StandardCharsets.UTF_8));
            try (Stream<Path> files = Files.list(dir)) {
                for (Path released : files.filter(f -> f.getFileName().toString()
                        .matches(Pattern.quote(m.getKey()) + "-\\d+\\.\\d+\\.\\d+\\.api")).sorted().toList()) {
                    String type = null;
                    for (String line : Files.readAllLines(released, StandardCharsets.UTF_8)) {
                        if (!line.startsWith(" ") && !line.equals("}")) {
                            type = simpleName(line);
                        }
                        if (!line.equals("}") && !now.contains(line)) {
                            String t = type;
                            if (breaking.stream().noneMatch(b -> b.contains(t))) {
                                unannounced.add(released.getFileName() + ": " + line.strip() + "  (type " + t + ")");
                            }
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), unannounced, "removed from a released API without a \"Breaking\" line naming the type"
                + " in CHANGELOG.md's Unreleased section");
    }

    @Test
    void dump_ofAFixture_listsPublicAndProtectedMembersOfPublicTypesOnly() {
        // The dump of this module's own test classes, which hold a fixture with every case.
        String api = dump(ROOT.resolve("module-tests"), Path.of("target", "test-classes"),
                Set.of("io.github.sluice.moduletests.apifixture"));
        assertTrue(api.contains("public class io.github.sluice.moduletests.apifixture.Visible {"), api);
        assertTrue(api.contains("  protected void forSubclasses();"), api);
        assertTrue(api.contains("  public java.util.List<java.lang.String> names();"), api);
        assertTrue(api.contains("public final class io.github.sluice.moduletests.apifixture.Visible$Nested {"),
                api);
        assertFalse(api.contains("packagePrivate"), api);
        assertFalse(api.contains("secret"), api);
        assertFalse(api.contains("Hidden"), api);
        assertFalse(api.contains("Compiled from"), api);
        assertFalse(api.contains("Visible$1"), api);
    }

    @Test
    void diff_marksRemovedAndAddedLines() {
        assertEquals("- a();\n+ b();", diff("x {\n a();\n}\n", "x {\n b();\n}\n"));
    }

    private static String read(Path pom) {
        try {
            return Files.readString(pom, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Published jar modules by artifactId. */
    private static Map<String, Path> jarModules() {
        Map<String, Path> jars = new TreeMap<>();
        PublishedArtifactsIT.publishedModules().forEach((artifact, dir) -> {
            // A jar module (the default packaging): sources of its own, or generated ones (the javax modules).
            String pom = read(dir.resolve("pom.xml"));
            boolean jar = !pom.contains("<packaging>") || pom.contains("<packaging>jar</packaging>");
            if (jar && !artifact.equals("sluice-module-tests")) {
                jars.put(artifact, dir);
            }
        });
        return jars;
    }

    private static String dump(Path module) {
        return dump(module, Path.of("target", "classes"), exportedPackages(module));
    }

    /**
     * The API of the classes under {@code module/classes} in {@code packages} ({@code null}: every
     * package without an {@code internal} segment).
     */
    static String dump(Path module, Path classes, Set<String> packages) {
        Path root = module.resolve(classes);
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = root.relativize(f).toString().replace(java.io.File.separatorChar, '.');
                name = name.substring(0, name.length() - ".class".length());
                String pkg = name.contains(".") ? name.substring(0, name.lastIndexOf('.')) : "";
                boolean exported = packages != null ? packages.contains(pkg)
                        : !("." + pkg + ".").contains(".internal.");
                if (exported && !name.endsWith("module-info") && !name.endsWith("package-info")
                        && !name.matches(".*\\$\\d.*")) {
                    names.add(name);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + root + " (is the module compiled?)", e);
        }
        if (names.isEmpty()) {
            return "";
        }
        java.util.Collections.sort(names);
        ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
        List<String> args = new ArrayList<>(List.of("-protected", "-cp", root.toString()));
        args.addAll(names);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = javap.run(new PrintWriter(out), new PrintWriter(err), args.toArray(new String[0]));
        if (rc != 0) {
            throw new IllegalStateException("javap failed (" + rc + "): " + err);
        }
        // Blocks: "Compiled from ..." then the type's line, members, "}".
        Map<String, List<String>> types = new TreeMap<>();
        List<String> block = null;
        for (String line : out.toString().split("\\R")) {
            if (line.startsWith("Compiled from") || line.isBlank()) {
                continue;
            }
            if (!line.startsWith(" ") && !line.equals("}")) {
                block = new ArrayList<>();
                block.add(line);
                types.put(typeName(line), block);
            } else if (block != null) {
                block.add(line);
            }
        }
        StringBuilder api = new StringBuilder();
        for (Map.Entry<String, List<String>> t : types.entrySet()) {
            if (!isApi(t.getKey(), types)) {
                continue;
            }
            List<String> lines = t.getValue();
            api.append(lines.get(0)).append('\n');
            lines.subList(1, lines.size()).stream().filter(l -> !l.equals("}")).sorted()
                    .forEach(l -> api.append(l).append('\n'));
            api.append("}\n");
        }
        return api.toString();
    }

    /** Whether a type is public and every type enclosing it is API too. */
    private static boolean isApi(String name, Map<String, List<String>> types) {
        List<String> lines = types.get(name);
        if (lines == null || !lines.get(0).startsWith("public ")) {
            return false;
        }
        int nested = name.lastIndexOf('$');
        return nested < 0 || isApi(name.substring(0, nested), types);
    }

    /** The binary name in a javap type line: the token after class/interface/enum/record/@interface. */
    private static String typeName(String line) {
        Matcher m = Pattern.compile("(?:class|interface|enum|record) ([\\w.$]+)").matcher(line);
        if (!m.find()) {
            throw new IllegalStateException("unexpected javap line: " + line);
        }
        return m.group(1);
    }

    private static String simpleName(String typeLine) {
        String name = typeName(typeLine);
        return name.substring(Math.max(name.lastIndexOf('.'), name.lastIndexOf('$')) + 1);
    }

    /** The packages {@code module}'s module-info exports, or {@code null} if it has none. */
    private static Set<String> exportedPackages(Path module) {
        Path info = module.resolve("src/main/java/module-info.java");
        if (!Files.exists(info)) {
            return null;
        }
        try {
            Set<String> exported = new LinkedHashSet<>();
            Matcher m = EXPORTS.matcher(Files.readString(info, StandardCharsets.UTF_8));
            while (m.find()) {
                exported.add(m.group(1));
            }
            return exported;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The text of CHANGELOG.md's "## [Unreleased]" section, up to the next "## " heading. */
    static String unreleasedSection(String changelog) {
        int start = changelog.indexOf("## [Unreleased]");
        if (start < 0) {
            throw new AssertionError("CHANGELOG.md has no \"## [Unreleased]\" section");
        }
        int end = changelog.indexOf("\n## ", start + 1);
        return end < 0 ? changelog.substring(start) : changelog.substring(start, end);
    }

    /** The lines only in {@code a} ("- ") and only in {@code b} ("+ "), braces and type lines kept for context. */
    static String diff(String a, String b) {
        Set<String> left = new LinkedHashSet<>(List.of(a.split("\n")));
        Set<String> right = new LinkedHashSet<>(List.of(b.split("\n")));
        List<String> out = new ArrayList<>();
        for (String l : left) {
            if (!right.contains(l)) {
                out.add("- " + l.strip());
            }
        }
        for (String l : right) {
            if (!left.contains(l)) {
                out.add("+ " + l.strip());
            }
        }
        return String.join("\n", out.size() > 200 ? out.subList(0, 200) : out);
    }
}
