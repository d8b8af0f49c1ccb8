package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The build's own rules, read from the poms of the reactor (this module runs from
 * {@code module-tests/}, so the root is its parent directory): the BOM lists every published
 * artifact and nothing else, and no pom writes a version inline (dependencies and plugins alike
 * take theirs from a property of the parent pom), so that an upgrade is one line.
 */
class BuildHygieneTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);
    private static final Pattern PARENT = Pattern.compile("<parent>.*?</parent>", Pattern.DOTALL);
    private static final Pattern VERSION = Pattern.compile("<version>\\s*([^<]*?)\\s*</version>");

    /** A pom without its comments, so that a commented-out element counts for nothing. */
    private static String pom(Path dir) {
        try {
            return COMMENT.matcher(Files.readString(dir.resolve("pom.xml"))).replaceAll("");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + dir.resolve("pom.xml"), e);
        }
    }

    private static List<String> all(Pattern p, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = p.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    private static String first(String element, String text) {
        Matcher m = Pattern.compile("<" + element + ">\\s*([^<]*?)\\s*</" + element + ">").matcher(text);
        return m.find() ? m.group(1) : null;
    }

    private static List<String> modules() {
        List<String> modules = all(Pattern.compile("<module>\\s*([^<]+?)\\s*</module>"), pom(ROOT));
        assertTrue(modules.size() >= 7, "read the root pom's modules: " + modules);
        return modules;
    }

    /** Literal versions in a pom, other than its parent's and (for a pom without parent) its own. */
    static List<String> inlineVersions(String pom) {
        boolean hasParent = PARENT.matcher(pom).find();
        List<String> literal = new ArrayList<>();
        for (String v : all(VERSION, PARENT.matcher(pom).replaceAll(""))) {
            if (!v.startsWith("${")) {
                literal.add(v);
            }
        }
        if (!hasParent && !literal.isEmpty()) {
            literal.remove(0); // the project's own version
        }
        return literal;
    }

    @Test
    void noPom_writesAVersionInline() {
        Map<String, List<String>> inline = new TreeMap<>();
        List<String> dirs = new ArrayList<>(modules());
        dirs.add(".");
        for (String dir : dirs) {
            List<String> found = inlineVersions(pom(ROOT.resolve(dir)));
            if (!found.isEmpty()) {
                inline.put(dir, found);
            }
        }
        assertEquals(Map.of(), inline, "versions written inline instead of as a property of the parent pom");
    }

    @Test
    void inlineVersions_findsADependencyOrPluginVersion_butNotTheParentsOrTheProjectsOwn() {
        // The rule above must be able to fail
        String child = "<project><parent><version>1.0</version></parent><dependency><version>2.3</version>"
                + "</dependency><plugin><version>${p.version}</version></plugin></project>";
        assertEquals(List.of("2.3"), inlineVersions(child));
        String root = "<project><version>1.0</version><plugin><version>3.1</version></plugin></project>";
        assertEquals(List.of("3.1"), inlineVersions(root));
    }

    @Test
    void compiler_failsOnEveryWarning_inEveryModule() {
        // -Xlint:all with failOnWarning in the parent, and no module turning either off
        String root = pom(ROOT);
        assertTrue(root.contains("<failOnWarning>true</failOnWarning>"), "the parent lost failOnWarning");
        assertTrue(root.contains("<arg>-Xlint:all"), "the parent lost -Xlint:all");
        assertTrue(root.contains("<arg>-Xdoclint:${sluice.doclint}</arg>"), "the parent lost the doclint switch");
        assertTrue(root.contains("<sluice.doclint>all/protected</sluice.doclint>"), "doclint is not on by default");
        Map<String, String> weakened = new TreeMap<>();
        for (String dir : modules()) {
            String pom = pom(ROOT.resolve(dir));
            for (String bad : List.of("<failOnWarning>false", "<showWarnings>false", "-nowarn", "-Xlint:none",
                    "<compilerArgs combine.self=\"override\"", "sluice.doclint>")) {
                if (pom.contains(bad)) {
                    weakened.put(dir, bad);
                }
            }
        }
        assertEquals(Map.of(), weakened, "modules that weaken the compiler's checks");
    }

    @Test
    void bom_listsEveryPublishedArtifact_andNothingElse() {
        TreeSet<String> published = new TreeSet<>();
        for (String dir : modules()) {
            String pom = pom(ROOT.resolve(dir));
            String packaging = first("packaging", pom);
            boolean deployed = !"true".equals(first("maven.deploy.skip", pom));
            if (deployed && (packaging == null || packaging.equals("jar"))) {
                published.add(first("artifactId", PARENT.matcher(pom).replaceAll("")));
            }
        }
        assertTrue(published.contains("sluice-filter-core"), published::toString);
        assertFalse(published.contains("sluice-module-tests"), published::toString);

        String bom = pom(ROOT.resolve("bom"));
        assertFalse(PARENT.matcher(bom).find(), "the BOM must not inherit the parent's dependencyManagement");
        // Its dependencyManagement alone: its build section names the plugins that stage it.
        String managed = bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>"));
        List<String> listed = all(Pattern.compile("<artifactId>\\s*([^<]+?)\\s*</artifactId>"), managed);
        assertEquals(published, new TreeSet<>(listed));
        assertEquals(listed.size(), new TreeSet<>(listed).size(), "listed twice: " + listed);
        assertTrue(all(VERSION, managed).stream().allMatch("${project.version}"::equals), managed);
        assertEquals(first("version", PARENT.matcher(pom(ROOT)).replaceAll("")), first("version", bom),
                "the BOM's version is the project's");
    }

    private static final Pattern MARKER = Pattern.compile("^(?:\\s*\\*\\s*)?(?:<{7}|>{7}) ", Pattern.MULTILINE);

    /**
     * @return the lines of {@code text} that are merge-conflict markers ({@code <<<<<<< side},
     *     {@code >>>>>>> side}), also inside a Javadoc comment, where javac does not see them
     */
    static List<String> conflictMarkers(String text) {
        List<String> found = new ArrayList<>();
        Matcher m = MARKER.matcher(text);
        while (m.find()) {
            int end = text.indexOf('\n', m.start());
            found.add(text.substring(m.start(), end < 0 ? text.length() : end).strip());
        }
        return found;
    }

    @Test
    void noSource_holdsAMergeConflictMarker() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : (Iterable<Path>) files
                    .filter(Files::isRegularFile)
                    .filter(f -> !ROOT.relativize(f).toString().matches("(?:.*/)?(?:target|\\.git)/.*|\\.git"))
                    .filter(f -> f.toString().matches(".*\\.(?:java|xml|lua|md|properties|yml|sh)"))::iterator) {
                for (String line : conflictMarkers(Files.readString(f))) {
                    found.add(ROOT.relativize(f) + ": " + line);
                }
            }
        }
        assertEquals(List.of(), found, "unresolved merge conflicts");
    }

    @Test
    void conflictMarkers_findsMarkersInCodeAndJavadoc_butNotOtherRuns() {
        String side = "HEAD";
        String text = "a\n" + "<".repeat(7) + " " + side + "\nb\n" + "=".repeat(7) + "\n c\n "
                + "* " + ">".repeat(7) + " branch\n// <<<< not one\n" + "<".repeat(8) + "x\n";
        assertEquals(List.of("<".repeat(7) + " HEAD", "* " + ">".repeat(7) + " branch"), conflictMarkers(text));
    }
}
