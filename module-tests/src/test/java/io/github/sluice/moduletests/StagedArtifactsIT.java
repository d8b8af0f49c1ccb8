package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sluice is consumable without building its sources: what the build staged, as a deployment lays
 * it out (the root pom's {@code stage-locally} execution writes every published module's pom, jar,
 * sources and javadoc, the parent and the BOM into {@code target/staging-repository}), is enough
 * for a team's own projects, resolved <em>offline</em> from that repository alone:
 * <ul>
 *   <li>a Spring Boot application with the BOM and the starter, started as its executable jar,
 *       limits {@code /hello} from its {@code application.yml};</li>
 *   <li>a plain WAR with the servlet filter in its {@code web.xml}, deployed into Jetty, limits
 *       {@code /hello} from its init-params.</li>
 * </ul>
 * Each consumer is built by a separate Maven with an empty local repository whose only
 * repositories are files: the staging repository, and the build's own local repository standing
 * in for Maven Central for everything that is not Sluice (it holds no Sluice artifact, since the
 * build never installs). Afterwards every Sluice artifact the consumer resolved is checked to have
 * come from the staging repository.
 */
class StagedArtifactsIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path STAGING = Path.of(property("sluice.staging.repository"));
    private static final Path WORK = ROOT.resolve("module-tests/target/consumers");
    private static Path localRepository;

    private static String property(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank() || v.contains("${")) {
            throw new IllegalStateException("system property " + name + " is not set (failsafe passes it)");
        }
        return v;
    }

    @BeforeAll
    static void emptyLocalRepository() throws IOException {
        // An offline build stages nothing (Maven refuses every deployment offline): the staging
        // of an earlier build may be stale, so nothing here would prove anything. Said, not hidden.
        org.junit.jupiter.api.Assumptions.assumeFalse("offline:true".equals(System.getProperty("sluice.build.offline")),
                "an offline build (-o) does not stage the artifacts: StagedArtifactsIT runs in builds that are online");
        deleteTree(WORK);
        localRepository = Files.createDirectories(WORK.resolve("repository"));
    }

    @Test
    void stagingRepository_holdsEveryPublishedModule_withPomJarSourcesAndJavadoc() throws IOException {
        List<String> missing = new ArrayList<>();
        for (String artifact : PublishedArtifactsIT.publishedModules().keySet()) {
            Path dir = STAGING.resolve("io/github/sluice").resolve(artifact).resolve(version());
            String pom = Files.readString(ROOT.resolve(PublishedArtifactsIT.publishedModules().get(artifact)
                    .resolve("pom.xml")));
            boolean jar = !pom.contains("<packaging>") || pom.contains("<packaging>jar</packaging>");
            for (String suffix : jar ? List.of(".pom", ".jar", "-sources.jar", "-javadoc.jar") : List.of(".pom")) {
                if (!Files.isDirectory(dir) || !hasFile(dir, suffix)) {
                    missing.add(artifact + " " + suffix);
                }
            }
        }
        if (!Files.isDirectory(STAGING.resolve("io/github/sluice/sluice-parent").resolve(version()))) {
            missing.add("sluice-parent .pom");
        }
        assertEquals(List.of(), missing, "not staged in " + STAGING);
    }

    @Test
    void bootApplication_withTheStarter_resolvesFromStagingAlone_andLimits() throws Exception {
        Path project = build("boot-app");
        Path jar = project.resolve("target/consumer-boot.jar");
        assertTrue(Files.isRegularFile(jar), "no executable jar: " + jar);
        int port = freePort();
        Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-jar", jar.toString(), "--server.port=" + port)
                .redirectErrorStream(true).redirectOutput(project.resolve("app.log").toFile()).start();
        try {
            awaitUp(port, app, project.resolve("app.log"));
            assertLimited(port);
        } finally {
            app.destroy();
            if (!app.waitFor(20, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
        assertResolvedFromStaging();
    }

    @Test
    void plainWar_withTheServletFilter_resolvesFromStagingAlone_andLimitsInJetty() throws Exception {
        Path project = build("plain-war");
        Path war = project.resolve("target/consumer-war.war");
        assertTrue(Files.isRegularFile(war), "no WAR: " + war);
        Server server = new Server(0);
        WebAppContext context = new WebAppContext();
        context.setWar(war.toString());
        context.setContextPath("/");
        context.setTempDirectory(Files.createDirectories(project.resolve("target/jetty")).toFile());
        server.setHandler(context);
        server.start();
        try {
            assertTrue(context.isAvailable(), "the WAR did not start: " + context.getUnavailableException());
            assertLimited(((ServerConnector) server.getConnectors()[0]).getLocalPort());
        } finally {
            server.stop();
        }
        assertResolvedFromStaging();
    }

    /** Two requests pass with the RateLimit fields, the third is refused with a problem body. */
    private static void assertLimited(int port) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest hello = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                .timeout(Duration.ofSeconds(10)).build();
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> ok = http.send(hello, HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ok.statusCode(), ok.body());
            assertEquals("hello\n", ok.body());
            assertTrue(ok.headers().firstValue("RateLimit-Policy").orElse("").contains("q=2"), ok.headers().toString());
        }
        HttpResponse<String> denied = http.send(hello, HttpResponse.BodyHandlers.ofString());
        assertEquals(429, denied.statusCode(), denied.body());
        assertTrue(denied.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                denied.headers().toString());
        assertTrue(denied.headers().firstValue("Retry-After").isPresent(), denied.headers().toString());
    }

    /** Every Sluice artifact in the consumer's local repository came from the staging repository. */
    private static void assertResolvedFromStaging() throws IOException {
        Path sluice = localRepository.resolve("io/github/sluice");
        assertTrue(Files.isDirectory(sluice), "no Sluice artifact was resolved");
        List<String> elsewhere = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sluice)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("maven-metadata-")).toList()) {
                if (!f.getFileName().toString().startsWith("maven-metadata-sluice-staging.xml")) {
                    elsewhere.add(sluice.relativize(f).toString());
                }
            }
        }
        assertEquals(List.of(), elsewhere, "Sluice metadata from a repository other than the staging one");
    }

    /** Copies a consumer project and builds it offline with {@code mvn package}; returns its directory. */
    private static Path build(String name) throws Exception {
        Path project = WORK.resolve(name);
        copyTree(ROOT.resolve("module-tests/src/test/consumers").resolve(name), project);
        Path settings = WORK.resolve("settings.xml");
        Files.writeString(settings, settings(), StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>(List.of(Path.of(property("maven.home"), "bin", "mvn").toString(),
                "-B", "-q", "-o", "-Daether.offline.protocols=file", "-s", settings.toString(),
                "-Dmaven.repo.local=" + localRepository, "-Dsluice.version=" + version()));
        for (String p : List.of("spring-boot.version", "servlet-api.version", "resources-plugin.version",
                "compiler-plugin.version", "surefire.version", "jar-plugin.version", "war-plugin.version")) {
            command.add("-D" + p + "=" + property("consumer." + p));
        }
        command.add("package");
        ProcessBuilder pb = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true)
                .redirectOutput(project.resolve("build.log").toFile());
        pb.environment().remove("MAVEN_OPTS");
        Process mvn = pb.start();
        if (!mvn.waitFor(5, TimeUnit.MINUTES)) {
            mvn.destroyForcibly();
            fail("the build of " + name + " took more than 5 minutes");
        }
        if (mvn.exitValue() != 0) {
            fail("the build of " + name + " failed:\n" + Files.readString(project.resolve("build.log")));
        }
        return project;
    }

    /** Only file repositories: the staging one for Sluice, the build's local one standing in for Central. */
    private static String settings() {
        String central = localRepositoryOfThisBuild().toUri().toString();
        String staging = STAGING.toUri().toString();
        String repos = "<repository><id>central</id><url>" + central + "</url></repository>"
                + "<repository><id>sluice-staging</id><url>" + staging + "</url>"
                + "<snapshots><enabled>true</enabled></snapshots></repository>";
        // The mirror takes every repository but the staging one (Central and whatever a POM
        // declares, imported BOMs included) to the build's local repository.
        return "<settings><mirrors><mirror><id>local-central</id><mirrorOf>*,!sluice-staging</mirrorOf><url>" + central
                + "</url></mirror></mirrors><profiles><profile><id>staged</id><repositories>" + repos + "</repositories>"
                + "<pluginRepositories><pluginRepository><id>central</id><url>" + central + "</url>"
                + "</pluginRepository></pluginRepositories></profile></profiles>"
                + "<activeProfiles><activeProfile>staged</activeProfile></activeProfiles></settings>";
    }

    private static Path localRepositoryOfThisBuild() {
        Path repo = Path.of(property("sluice.local.repository"));
        // The stand-in for Central must not hold Sluice's artifacts (staging leaves only metadata
        // there), or the check of where they came from proves nothing.
        Path own = repo.resolve("io/github/sluice");
        if (Files.isDirectory(own)) {
            try (Stream<Path> files = Files.walk(own)) {
                List<Path> installed = files.filter(f -> f.toString().endsWith(".jar") || f.toString().endsWith(".pom"))
                        .toList();
                if (!installed.isEmpty()) {
                    throw new IllegalStateException(own + " holds Sluice artifacts, installed by mvn install: "
                            + installed.get(0) + "; remove that directory, the build never needs it");
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return repo;
    }

    private static String version() {
        return property("sluice.version");
    }

    private static boolean hasFile(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(suffix)
                    && !f.getFileName().toString().endsWith("-tests" + suffix));
        }
    }

    private static void awaitUp(int port, Process app, Path log) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!app.isAlive()) {
                fail("the application exited (" + app.exitValue() + "):\n" + Files.readString(log));
            }
            try {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/nothing-here")).build(),
                        HttpResponse.BodyHandlers.discarding());
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        fail("the application did not answer within 90 s:\n" + Files.readString(log));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
