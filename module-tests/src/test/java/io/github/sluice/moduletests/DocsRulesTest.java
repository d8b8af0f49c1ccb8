package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a new user trips over in the documentation, checked on README.md and docs/*.md: a link to
 * a file that is not in the repository (a design document kept elsewhere), an issue number the
 * user cannot look up, a dependency snippet without a version (and without the BOM that would
 * give it one), a Maven snippet of the README without its Gradle counterpart, and a performance
 * page that does not start with its summary.
 */
class DocsRulesTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(?:#[^)]*)?\\)");
    private static final Pattern FENCE = Pattern.compile("```(\\w*)\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
    private static final Pattern ARTIFACT = Pattern.compile("<artifactId>\\s*([^<]+?)\\s*</artifactId>");

    static Map<Path, String> documents() throws IOException {
        Map<Path, String> docs = new LinkedHashMap<>();
        docs.put(ROOT.resolve("README.md"), read(ROOT.resolve("README.md")));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".md")).sorted()::iterator) {
                docs.put(f, read(f));
            }
        }
        return docs;
    }

    private static String read(Path f) throws IOException {
        return Files.readString(f, StandardCharsets.UTF_8);
    }

    private static String where(Path file, String text, int offset) {
        return ROOT.relativize(file) + ":" + (text.substring(0, offset).lines().count() + (offset == 0 ? 1 : 0));
    }

    @Test
    void everyRelativeLink_pointsAtAFileOfTheRepository() throws IOException {
        List<String> broken = new ArrayList<>();
        documents().forEach((file, text) -> {
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (!target.matches("[a-z]+:.*") && !Files.exists(file.getParent().resolve(target).normalize())) {
                    broken.add(where(file, text, m.start()) + " -> " + target);
                }
            }
        });
        assertEquals(List.of(), broken, "links to files that are not in the repository");
    }

    /**
     * @return the places of prose that send the reader to documents or trackers they cannot see;
     *     a link to a public page (an upstream project's issue) is visible, and so are code spans
     *     and a link's target (an anchor such as {@code #7-jax-rs})
     */
    static List<String> invisibleReferences(String markdown) {
        String text = markdown.replaceAll("\\[[^\\]]*\\]\\(https?://[^)]*\\)", "")
                .replaceAll("\\]\\([^)]*\\)", "]")
                .replaceAll("`[^`\\n]*`", "");
        List<String> found = new ArrayList<>();
        Matcher m = Pattern.compile("(?i)\\bDESIGN(?:\\.md| section| doc(?:ument)?s?\\b)|design doc(?:ument)?s?\\b"
                + "|\\bissues? #?\\d+|(?<![\\w&/])#\\d{1,4}\\b").matcher(text);
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    @Test
    void noDocument_refersToADesignDocumentOrAnIssueNumberTheUserCannotSee() throws IOException {
        Map<String, List<String>> found = new TreeMap<>();
        documents().forEach((file, text) -> {
            // Code blocks may hold '#1' (a shell comment, a Java hash) legitimately: prose only.
            List<String> refs = invisibleReferences(FENCE.matcher(text).replaceAll(""));
            if (!refs.isEmpty()) {
                found.put(ROOT.relativize(file).toString(), refs);
            }
        });
        assertEquals(Map.of(), found, "references to documents or issues that are not in the repository");
    }

    @Test
    void invisibleReferences_findsDesignDocsAndIssueNumbers_butNotHeadingsOrDesignedBehaviour() {
        assertEquals(List.of("DESIGN section", "issue 15", "#14", "design document"), invisibleReferences(
                "see DESIGN section 3; fixed in issue 15 and #14; the design document says; by design; "
                        + "designed so; section 3.1; &#8212; a/#1; [issue 134](https://github.com/x/y/issues/134); "
                        + "[section 7](#7-jax-rs); `#2:key`"));
    }

    @Test
    void everyDependencySnippet_hasAVersion_orImportsTheBom() throws IOException {
        List<String> unversioned = new ArrayList<>();
        documents().forEach((file, text) -> {
            Matcher block = FENCE.matcher(text);
            while (block.find()) {
                if (!block.group(1).equals("xml")) {
                    continue;
                }
                String xml = block.group(2);
                boolean bom = xml.contains("<artifactId>sluice-bom</artifactId>") && xml.contains("<scope>import</scope>");
                Matcher dep = DEPENDENCY.matcher(xml);
                while (dep.find()) {
                    if (!dep.group(1).contains("<version>") && !bom) {
                        Matcher a = ARTIFACT.matcher(dep.group(1));
                        unversioned.add(where(file, text, block.start()) + " " + (a.find() ? a.group(1) : dep.group()));
                    }
                }
            }
        });
        assertEquals(List.of(), unversioned, "dependency snippets a user cannot resolve as written");
    }

    @Test
    void everyMavenDependencySnippetOfTheReadme_isFollowedByItsGradleKotlinCounterpart() throws IOException {
        String readme = read(ROOT.resolve("README.md"));
        Map<String, String> missing = new TreeMap<>();
        Matcher block = FENCE.matcher(readme);
        List<int[]> blocks = new ArrayList<>();
        List<String> languages = new ArrayList<>();
        List<String> bodies = new ArrayList<>();
        while (block.find()) {
            blocks.add(new int[] {block.start(), block.end()});
            languages.add(block.group(1));
            bodies.add(block.group(2));
        }
        int mavenSnippets = 0;
        for (int i = 0; i < blocks.size(); i++) {
            if (!languages.get(i).equals("xml") || !bodies.get(i).contains("<dependency>")) {
                continue;
            }
            mavenSnippets++;
            TreeSet<String> artifacts = new TreeSet<>();
            Matcher a = ARTIFACT.matcher(bodies.get(i));
            while (a.find()) {
                artifacts.add(a.group(1));
            }
            String where = where(ROOT.resolve("README.md"), readme, blocks.get(i)[0]);
            if (i + 1 >= blocks.size() || !languages.get(i + 1).equals("kotlin")) {
                missing.put(where, "no ```kotlin block after it");
                continue;
            }
            for (String artifact : artifacts) {
                if (artifact.startsWith("sluice-") && !bodies.get(i + 1).contains(":" + artifact)) {
                    missing.put(where, "the Gradle block does not declare " + artifact);
                }
            }
        }
        assertTrue(mavenSnippets >= 3, "found " + mavenSnippets + " Maven dependency snippets in the README");
        assertEquals(Map.of(), missing, "Maven snippets of the README without Gradle (Kotlin DSL) beside them");
    }

    @Test
    void performancePage_startsWithItsSummaryTable() throws IOException {
        String perf = read(ROOT.resolve("docs/PERFORMANCE.md"));
        int firstSection = perf.indexOf("\n## ");
        assertTrue(firstSection > 0, "docs/PERFORMANCE.md has no sections");
        String first = perf.substring(firstSection + 1, perf.indexOf("\n## ", firstSection + 1));
        assertTrue(first.startsWith("## Summary"), "the first section is not the summary: " + first.lines().findFirst());
        assertTrue(first.contains("\n| target | figure | verdict |\n|---|"), "the summary has no table");
    }
}
