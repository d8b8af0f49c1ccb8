package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What Maven Central requires of every artifact Sluice publishes, checked on what the build
 * produced rather than on what the poms seem to say: each published module's <em>effective</em>
 * POM (written by {@code help:effective-pom} to {@code target/effective-pom.xml} in the package
 * phase, so inheritance from the parent is Maven's own) carries name, description, url, licenses,
 * scm and developers, and each published jar module attached a {@code -sources} and a
 * {@code -javadoc} jar with real content. The javax modules' sources jar holds the transformed
 * javax sources, not the jakarta ones they are generated from.
 *
 * <p>An integration test (failsafe, verify phase): it reads the other modules' {@code target/},
 * which the reactor has packaged by then, since this module depends on every published one.
 */
class PublishedArtifactsIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);
    private static final Pattern PARENT = Pattern.compile("<parent>.*?</parent>", Pattern.DOTALL);

    /** The jar modules Sluice publishes; the list read from the reactor must hold at least these. */
    private static final List<String> KNOWN_JARS = List.of("sluice-filter-core", "sluice-servlet", "sluice-jaxrs",
            "sluice-servlet-javax", "sluice-jaxrs-javax", "sluice-redis", "sluice-micrometer");

    private static String read(Path file) {
        try {
            return COMMENT.matcher(Files.readString(file)).replaceAll("");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }

    private static String first(String element, String text) {
        Matcher m = Pattern.compile("<" + element + ">\\s*([^<]*?)\\s*</" + element + ">").matcher(text);
        return m.find() ? m.group(1) : null;
    }

    /** Published module directories by artifactId: not skipped by deploy, jar or pom packaging. */
    static Map<String, Path> publishedModules() {
        Map<String, Path> published = new TreeMap<>();
        Matcher m = Pattern.compile("<module>\\s*([^<]+?)\\s*</module>").matcher(read(ROOT.resolve("pom.xml")));
        while (m.find()) {
            Path dir = ROOT.resolve(m.group(1));
            String pom = read(dir.resolve("pom.xml"));
            if (!"true".equals(first("maven.deploy.skip", pom))) {
                published.put(first("artifactId", PARENT.matcher(pom).replaceAll("")), dir);
            }
        }
        return published;
    }

    private static String version() {
        return first("version", PARENT.matcher(read(ROOT.resolve("pom.xml"))).replaceAll(""));
    }

    private static Element parse(Path file) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(false);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document doc = f.newDocumentBuilder().parse(file.toFile());
            return doc.getDocumentElement();
        } catch (Exception e) {
            throw new IllegalStateException("cannot parse " + file, e);
        }
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }

    /**
     * @return what Maven Central's rules find missing or wrong in one effective POM ({@code project}
     *     its root element), empty when it may be published
     */
    static List<String> centralRequirements(Element project, String projectUrl) {
        List<String> missing = new ArrayList<>();
        for (String element : List.of("groupId", "artifactId", "version", "name", "description", "url")) {
            String value = text(project, element);
            if (value == null || value.isEmpty()) {
                missing.add("<" + element + ">");
            }
        }
        // Maven appends the artifactId to an inherited url unless the parent says not to: every
        // module must point at the project's page, not at a path that does not exist.
        if (text(project, "url") != null && !text(project, "url").equals(projectUrl)) {
            missing.add("<url> is " + text(project, "url") + ", not the project's " + projectUrl);
        }
        List<Element> licenses = children(child(project, "licenses"), "license");
        if (licenses.isEmpty()) {
            missing.add("<licenses>");
        }
        for (Element license : licenses) {
            if (isBlank(text(license, "name")) || isBlank(text(license, "url"))) {
                missing.add("<license> without <name> and <url>");
            }
        }
        Element scm = child(project, "scm");
        for (String element : List.of("connection", "developerConnection", "url")) {
            String value = text(scm, element);
            if (isBlank(value)) {
                missing.add("<scm><" + element + ">");
            } else if (value.matches(".*/sluice-[a-z-]+$")) {
                missing.add("<scm><" + element + "> has the artifactId appended: " + value);
            }
        }
        List<Element> developers = children(child(project, "developers"), "developer");
        if (developers.isEmpty()) {
            missing.add("<developers>");
        }
        for (Element developer : developers) {
            if (isBlank(text(developer, "name")) && isBlank(text(developer, "id"))) {
                missing.add("<developer> without <name> or <id>");
            }
        }
        return missing;
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        if (parent != null) {
            NodeList list = parent.getChildNodes();
            for (int i = 0; i < list.getLength(); i++) {
                if (list.item(i) instanceof Element e && e.getTagName().equals(name)) {
                    found.add(e);
                }
            }
        }
        return found;
    }

    @Test
    void reactor_publishesTheKnownModules_andNotTheDemoBenchmarksOrTheseTests() {
        Map<String, Path> published = publishedModules();
        assertTrue(published.keySet().containsAll(KNOWN_JARS), published::toString);
        assertTrue(published.containsKey("sluice-bom"), published::toString);
        for (String never : List.of("sluice-demo-war", "sluice-benchmarks", "sluice-module-tests")) {
            assertFalse(published.containsKey(never), never + " would be published: " + published);
        }
    }

    @Test
    void everyPublishedPom_carriesWhatMavenCentralRequires() {
        String projectUrl = text(parse(ROOT.resolve("pom.xml")), "url");
        assertFalse(isBlank(projectUrl), "the parent pom has no <url>");
        Map<String, List<String>> failures = new TreeMap<>();
        // The parent is deployed too (every module's pom names it), and so is the BOM, whose pom,
        // without a parent, is its own effective metadata.
        Map<String, Path> poms = new TreeMap<>();
        poms.put("sluice-parent", ROOT.resolve("target/effective-pom.xml"));
        publishedModules().forEach((artifact, dir) -> poms.put(artifact,
                artifact.equals("sluice-bom") ? dir.resolve("pom.xml") : dir.resolve("target/effective-pom.xml")));
        poms.forEach((artifact, file) -> {
            if (!Files.isRegularFile(file)) {
                failures.put(artifact, List.of("no effective POM at " + ROOT.relativize(file)));
                return;
            }
            List<String> missing = centralRequirements(parse(file), projectUrl);
            if (!missing.isEmpty()) {
                failures.put(artifact, missing);
            }
        });
        assertEquals(Map.of(), failures, "published POMs that Maven Central would refuse");
    }

    @Test
    void centralRequirements_namesWhatIsMissing() {
        // The rule above must be able to fail: a bare pom, and one whose url Maven extended
        String bare = "<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>"
                + "<name>n</name><description>d</description><url>https://x/p/sluice-a</url></project>";
        assertEquals(List.of("<url> is https://x/p/sluice-a, not the project's https://x/p", "<licenses>",
                "<scm><connection>", "<scm><developerConnection>", "<scm><url>", "<developers>"),
                centralRequirements(parseString(bare), "https://x/p"));
        String full = "<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>"
                + "<name>n</name><description>d</description><url>https://x/p</url>"
                + "<licenses><license><name>L</name><url>https://l</url></license></licenses>"
                + "<scm><connection>scm:git:https://x/p.git</connection>"
                + "<developerConnection>scm:git:ssh://x/p.git/sluice-a</developerConnection>"
                + "<url>https://x/p</url></scm><developers><developer><name>D</name></developer></developers>"
                + "</project>";
        assertEquals(List.of("<scm><developerConnection> has the artifactId appended: scm:git:ssh://x/p.git/sluice-a"),
                centralRequirements(parseString(full), "https://x/p"));
    }

    private static Element parseString(String xml) {
        try {
            Path tmp = Files.createTempFile("pom", ".xml");
            try {
                Files.writeString(tmp, xml);
                return parse(tmp);
            } finally {
                Files.delete(tmp);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void everyPublishedJar_attachesItsSourcesAndJavadoc() throws IOException {
        String version = version();
        Map<String, String> failures = new TreeMap<>();
        for (Map.Entry<String, Path> module : publishedModules().entrySet()) {
            String artifact = module.getKey();
            if (artifact.equals("sluice-bom")) {
                continue; // a pom: Central asks no jars of it
            }
            Path target = module.getValue().resolve("target");
            Path main = target.resolve(artifact + "-" + version + ".jar");
            Path sources = target.resolve(artifact + "-" + version + "-sources.jar");
            Path javadoc = target.resolve(artifact + "-" + version + "-javadoc.jar");
            if (!Files.isRegularFile(main)) {
                failures.put(artifact, "no main jar " + main.getFileName());
                continue;
            }
            if (!Files.isRegularFile(sources)) {
                failures.put(artifact, "no sources jar " + sources.getFileName());
                continue;
            }
            if (!Files.isRegularFile(javadoc)) {
                failures.put(artifact, "no javadoc jar " + javadoc.getFileName());
                continue;
            }
            // Every package with classes in the main jar has its sources, and the module descriptor too.
            TreeSet<String> classPackages = packages(main, ".class");
            TreeSet<String> sourcePackages = packages(sources, ".java");
            classPackages.remove("");
            if (!sourcePackages.containsAll(classPackages)) {
                TreeSet<String> without = new TreeSet<>(classPackages);
                without.removeAll(sourcePackages);
                failures.put(artifact, "sources jar lacks the packages " + without);
                continue;
            }
            // An explicit module ships its descriptor's source; an automatic one (the Spring Boot
            // starter, like Spring's own jars) names itself in the manifest instead.
            if (names(main).contains("module-info.class")) {
                if (!names(sources).contains("module-info.java")) {
                    failures.put(artifact, "sources jar lacks module-info.java");
                    continue;
                }
            } else if (automaticModuleName(main) == null) {
                failures.put(artifact, "neither a module-info.class nor an Automatic-Module-Name");
                continue;
            }
            List<String> docs = names(javadoc);
            if (!docs.contains("index.html") || docs.stream().noneMatch(n -> n.endsWith("/package-summary.html"))) {
                failures.put(artifact, "javadoc jar has no index.html or no package page: " + docs.size() + " entries");
                continue;
            }
            if (artifact.endsWith("-javax")) {
                String jakarta = artifact.contains("servlet") ? "jakarta.servlet" : "jakarta.ws.rs";
                String javax = artifact.contains("servlet") ? "javax.servlet" : "javax.ws.rs";
                String all = concatenatedSources(sources);
                if (all.contains(jakarta) || !all.contains(javax)) {
                    failures.put(artifact, "sources jar is not the transformed " + javax + " source");
                }
            }
        }
        assertEquals(Map.of(), failures, "published jars without what Maven Central requires beside them");
    }

    /** @return the jar's {@code Automatic-Module-Name}, or {@code null} */
    private static String automaticModuleName(Path jar) throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            return f.getManifest() == null ? null : f.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        }
    }

    private static List<String> names(Path jar) throws IOException {
        List<String> names = new ArrayList<>();
        try (JarFile f = new JarFile(jar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = f.entries(); e.hasMoreElements(); ) {
                names.add(e.nextElement().getName());
            }
        }
        return names;
    }

    private static TreeSet<String> packages(Path jar, String suffix) throws IOException {
        TreeSet<String> packages = new TreeSet<>();
        for (String name : names(jar)) {
            if (name.endsWith(suffix) && !name.startsWith("META-INF/") && !name.endsWith("module-info" + suffix)) {
                int slash = name.lastIndexOf('/');
                packages.add(slash < 0 ? "" : name.substring(0, slash).replace('/', '.'));
            }
        }
        return packages;
    }

    private static String concatenatedSources(Path jar) throws IOException {
        StringBuilder all = new StringBuilder();
        try (JarFile f = new JarFile(jar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = f.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                if (entry.getName().endsWith(".java")) {
                    try (InputStream in = f.getInputStream(entry)) {
                        all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return all.toString();
    }
}
