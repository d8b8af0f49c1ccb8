package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The reader the layering tests rely on: what it must see (every kind of import, names written in
 * code) and what it must not (comments, Javadoc, strings, text blocks, characters), so that a
 * layering test cannot pass because its reader missed the violation.
 */
class SourceDependenciesTest {

    private static final String PREFIX = "io.github.sluice";

    private static SourceDependencies read(String... pathsAndTexts) {
        Map<Path, String> files = new TreeMap<>();
        for (int i = 0; i < pathsAndTexts.length; i += 2) {
            files.put(Path.of(pathsAndTexts[i]), pathsAndTexts[i + 1]);
        }
        return SourceDependencies.of(files, PREFIX);
    }

    private static Set<String> targets(SourceDependencies d) {
        return d.references().stream().map(SourceDependencies.Reference::to).collect(Collectors.toSet());
    }

    @Test
    void imports_everyForm_isADependencyOnItsPackage() {
        SourceDependencies d = read("A.java", String.join("\n",
                "package io.github.sluice.store;",
                "import io.github.sluice.core.Clock;",
                "import static io.github.sluice.internal.Checks.atLeast;",
                "import io.github.sluice.algorithm.*;",
                "import static io.github.sluice.limiter.Permit.*;",
                "import io.github.sluice.http.Enforcer.Builder;",
                "import java.util.List;",
                "class A { }"));

        assertEquals(Set.of("io.github.sluice.core", "io.github.sluice.internal", "io.github.sluice.algorithm",
                "io.github.sluice.limiter", "io.github.sluice.http"), targets(d));
    }

    @Test
    void qualifiedNames_inCode_areDependenciesWithTheirLine() {
        SourceDependencies d = read("B.java", String.join("\n",
                "package io.github.sluice.key;",
                "class B {",
                "    io.github.sluice.policy.Policy p;",
                "    Object o = io.github.sluice.http . Verdict.class;",
                "    @io.github.sluice.config.Marker void m() { }",
                "}"));

        assertEquals(List.of("3 io.github.sluice.policy", "4 io.github.sluice.http", "5 io.github.sluice.config"),
                d.references().stream().map(r -> r.line() + " " + r.to()).collect(Collectors.toList()));
    }

    @Test
    void commentsStringsAndCharacters_areNotCode() {
        SourceDependencies d = read("C.java", String.join("\n",
                "package io.github.sluice.core;",
                "/** See {@link io.github.sluice.http.Enforcer} and {@code io.github.sluice.config}. */",
                "class C {",
                "    // io.github.sluice.policy.Policy",
                "    /* io.github.sluice.key.Keys */",
                "    String s = \"io.github.sluice.store.Store \\\" io.github.sluice.request.RequestView\";",
                "    char q = '\"'; String t = \"io.github.sluice.limiter.Permit\";",
                "    char e = '\\''; String u = \"io.github.sluice.algorithm.Gcra\";",
                "    String block = \"\"\"",
                "        io.github.sluice.http.Verdict \\\"\"\" still text",
                "        \"\"\";",
                "    Object after = io.github.sluice.internal.Units.class;",
                "}"));

        assertEquals(List.of("12 io.github.sluice.internal"),
                d.references().stream().map(r -> r.line() + " " + r.to()).collect(Collectors.toList()));
    }

    @Test
    void ownPackageAndOtherPrefixes_areNotReported() {
        SourceDependencies d = read("D.java", String.join("\n",
                "package io.github.sluice.redis.internal;",
                "import io.github.sluice.redis.internal.Micros;",
                "import com.example.io.github.sluice.http.Fake;",
                "import io.github.sluice.redis.RedisStore;",
                "class D { }"));

        assertEquals(Set.of("io.github.sluice.redis"), targets(d));
        assertEquals(Set.of("io.github.sluice.redis.internal"), d.packages());
    }

    @Test
    void upwardOrUnknown_importAboveItsLayer_isReported() {
        SourceDependencies d = read(
                "Store.java", "package io.github.sluice.store;\nimport io.github.sluice.http.EnforcementListener;\nclass Store { }",
                "Http.java", "package io.github.sluice.http;\nimport io.github.sluice.store.Store;\nclass Http { }",
                "New.java", "package io.github.sluice.fresh;\nimport io.github.sluice.core.Clock;\nclass New { }");

        List<SourceDependencies.Reference> bad = d.upwardOrUnknown(List.of("core", "store", "http"));

        assertEquals(List.of("io.github.sluice.fresh -> io.github.sluice.core",
                "io.github.sluice.store -> io.github.sluice.http"),
                bad.stream().map(r -> r.from() + " -> " + r.to()).sorted().collect(Collectors.toList()));
        assertTrue(bad.get(0).toString().contains(":2: "), bad.get(0)::toString);
    }

    @Test
    void mutual_packagesUsingEachOther_areReportedBothWays() {
        SourceDependencies d = read(
                "A.java", "package io.github.sluice.a;\nimport io.github.sluice.b.B;\nclass A { }",
                "B.java", "package io.github.sluice.b;\nclass B { io.github.sluice.a.A a; }",
                "C.java", "package io.github.sluice.c;\nimport io.github.sluice.a.A;\nclass C { }");

        assertEquals(List.of("io.github.sluice.a -> io.github.sluice.b", "io.github.sluice.b -> io.github.sluice.a"),
                d.mutual().stream().map(r -> r.from() + " -> " + r.to()).sorted().collect(Collectors.toList()));
    }

    @Test
    void outside_referenceToAPackageNotAllowed_isReported() {
        SourceDependencies d = read(
                "R.java", "package io.github.sluice.redis;\nimport io.github.sluice.redis.internal.X;\n"
                        + "import io.github.sluice.store.Store;\nimport io.github.sluice.http.Verdict;\nclass R { }",
                "X.java", "package io.github.sluice.redis.internal;\nclass X { }");

        assertEquals(List.of("io.github.sluice.http"),
                d.outside(List.of("store")).stream().map(SourceDependencies.Reference::to).collect(Collectors.toList()));
    }

    @Test
    void undocumented_packageWithoutPackageInfo_isListed() {
        SourceDependencies d = read(
                "a/package-info.java", "/** A. */\npackage io.github.sluice.a;",
                "a/A.java", "package io.github.sluice.a;\nclass A { }",
                "b/B.java", "package io.github.sluice.b;\nclass B { }");

        assertEquals(List.of("io.github.sluice.b"), d.undocumented());
    }

    @Test
    void scan_missingDirectory_isRefusedRatherThanReadAsEmpty() {
        assertThrows(IllegalArgumentException.class,
                () -> SourceDependencies.scan(Path.of("no-such-directory"), PREFIX));
    }
}
