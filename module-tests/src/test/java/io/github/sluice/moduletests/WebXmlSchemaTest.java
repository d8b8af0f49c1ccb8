package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import org.junit.jupiter.api.Test;
import org.w3c.dom.ls.LSInput;
import org.w3c.dom.ls.LSResourceResolver;
import org.xml.sax.SAXException;

/**
 * Every web.xml a user may copy is valid against the Servlet 6.0 schema ({@code web-app_6_0.xsd},
 * read from the jakarta.servlet-api jar, offline): the web.xml snippets of README.md and
 * docs/*.md (fragments such as {@code <filter>} are validated inside a {@code <web-app>}), and
 * the descriptors of the demo and the test webapp. A container that validates descriptors (Tomcat
 * with {@code xmlValidation}, GlassFish, WildFly) refuses to deploy an invalid one, and one that
 * does not may ignore what is out of order: {@code <async-supported>} after {@code <init-param>}
 * was such a snippet.
 */
class WebXmlSchemaTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String JAKARTAEE = "https://jakarta.ee/xml/ns/jakartaee";
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);
    /** The elements a web.xml snippet starts with; a pom snippet ({@code <dependency>}) is not one. */
    private static final Pattern WEB_XML_START = Pattern.compile(
            "^\\s*(?:<\\?xml[^>]*>\\s*)?(?:<!--.*?-->\\s*)*<(web-app|filter|filter-mapping|servlet|servlet-mapping"
                    + "|listener|context-param|session-config|error-page|security-constraint)[\\s>]",
            Pattern.DOTALL);
    /** The web.xml files of the jakarta modules (the javax modules' copies are generated, Servlet 4.0). */
    private static final List<String> DESCRIPTORS = List.of(
            "demo-war/src/main/webapp/WEB-INF/web.xml",
            "servlet/src/test/webapp/WEB-INF/web.xml");

    /** The Servlet 6.0 schema, from the API jar, with the XML namespace's schema served locally. */
    static Schema servlet6() throws Exception {
        Path apiJar = Path.of(Class.forName("jakarta.servlet.Servlet").getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        Map<String, byte[]> schemas = new TreeMap<>();
        try (JarFile jar = new JarFile(apiJar.toFile())) {
            jar.stream().filter(e -> e.getName().startsWith("jakarta/servlet/resources/")
                    && e.getName().endsWith(".xsd")).forEach(e -> {
                        try (InputStream in = jar.getInputStream(e)) {
                            schemas.put(e.getName().substring(e.getName().lastIndexOf('/') + 1), in.readAllBytes());
                        } catch (IOException x) {
                            throw new IllegalStateException(x);
                        }
                    });
        }
        try (InputStream xml = WebXmlSchemaTest.class.getResourceAsStream("/schemas/xml.xsd")) {
            schemas.put("xml.xsd", xml.readAllBytes());
        }
        assertTrue(schemas.containsKey("web-app_6_0.xsd"), "no web-app_6_0.xsd in " + apiJar);
        SchemaFactory factory = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        // Offline: every schema comes from the jar or from this test; anything else is an error.
        factory.setResourceResolver(new LocalSchemas(schemas));
        return factory.newSchema(new StreamSource(new ByteArrayInputStream(schemas.get("web-app_6_0.xsd")),
                "web-app_6_0.xsd"));
    }

    /** A snippet as a document: a fragment goes inside a Servlet 6.0 {@code <web-app>}. */
    static String asDocument(String snippet) {
        Matcher m = WEB_XML_START.matcher(snippet);
        if (m.find() && m.group(1).equals("web-app")) {
            return snippet;
        }
        return "<web-app xmlns=\"" + JAKARTAEE + "\" version=\"6.0\">\n" + snippet + "\n</web-app>\n";
    }

    /** @return the schema's complaints about one document, empty when it is valid */
    static List<String> problems(Schema schema, String document) {
        Validator validator = schema.newValidator();
        List<String> problems = new ArrayList<>();
        try {
            validator.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            validator.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            validator.validate(new StreamSource(new StringReader(document)));
        } catch (SAXException e) {
            problems.add(e.getMessage());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return problems;
    }

    /** The web.xml snippets of README.md and docs/*.md, by file and line. */
    static Map<String, String> snippets() throws IOException {
        Map<String, String> found = new LinkedHashMap<>();
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        for (Path file : files) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Matcher m = XML_BLOCK.matcher(text);
            while (m.find()) {
                if (WEB_XML_START.matcher(m.group(1)).find()) {
                    long line = text.substring(0, m.start()).lines().count() + 1;
                    found.put(ROOT.relativize(file) + ":" + line, m.group(1));
                }
            }
        }
        return found;
    }

    @Test
    void everyWebXmlSnippetOfTheDocs_isValidAgainstTheServlet6Schema() throws Exception {
        Schema schema = servlet6();
        Map<String, String> snippets = snippets();
        assertTrue(snippets.keySet().stream().anyMatch(k -> k.startsWith("README.md:")), snippets::toString);
        assertTrue(snippets.keySet().stream().anyMatch(k -> k.startsWith("docs/configuration.md:")),
                snippets::toString);
        Map<String, List<String>> invalid = new TreeMap<>();
        snippets.forEach((where, snippet) -> {
            List<String> problems = problems(schema, asDocument(snippet));
            if (!problems.isEmpty()) {
                invalid.put(where, problems);
            }
        });
        assertEquals(Map.of(), invalid, "web.xml snippets that a validating container refuses");
    }

    @Test
    void everyWebXmlOfTheBuild_isValidAgainstTheServlet6Schema() throws Exception {
        Schema schema = servlet6();
        Map<String, List<String>> invalid = new TreeMap<>();
        for (String descriptor : DESCRIPTORS) {
            String xml = Files.readString(ROOT.resolve(descriptor), StandardCharsets.UTF_8);
            assertTrue(xml.contains(JAKARTAEE), descriptor + " does not declare the Jakarta EE namespace");
            List<String> problems = problems(schema, xml);
            if (!problems.isEmpty()) {
                invalid.put(descriptor, problems);
            }
        }
        assertEquals(Map.of(), invalid, "web.xml files that a validating container refuses");
    }

    @Test
    void schema_refusesAsyncSupportedAfterInitParam_andAFilterWithoutClassOrName() throws Exception {
        // The check above must be able to fail: the order docs/configuration.md once showed
        Schema schema = servlet6();
        String wrongOrder = """
                <filter>
                  <filter-name>sluice</filter-name>
                  <filter-class>io.github.sluice.servlet.SluiceFilter</filter-class>
                  <init-param>
                    <param-name>policies</param-name>
                    <param-value>per-ip = token-bucket 100/1m key=ip</param-value>
                  </init-param>
                  <async-supported>true</async-supported>
                </filter>
                """;
        List<String> problems = problems(schema, asDocument(wrongOrder));
        assertEquals(1, problems.size(), problems::toString);
        assertTrue(problems.get(0).contains("async-supported"), problems::toString);
        String rightOrder = wrongOrder.replace("  <async-supported>true</async-supported>\n", "")
                .replace("<filter-class>io.github.sluice.servlet.SluiceFilter</filter-class>\n",
                        "<filter-class>io.github.sluice.servlet.SluiceFilter</filter-class>\n"
                                + "  <async-supported>true</async-supported>\n");
        assertEquals(List.of(), problems(schema, asDocument(rightOrder)));
        assertFalse(problems(schema, asDocument("<filter><async-supported>true</async-supported></filter>")).isEmpty());
        assertFalse(problems(schema, asDocument("<filter-mapping><filter-name>x</filter-name>"
                + "<dispatcher>SOMETIMES</dispatcher></filter-mapping>")).isEmpty());
    }

    @Test
    void snippets_takesWebXmlBlocks_butNotPomBlocks() {
        assertTrue(WEB_XML_START.matcher("<filter>\n<filter-name>a</filter-name></filter>").find());
        assertTrue(WEB_XML_START.matcher("<!-- web.xml -->\n<servlet>").find());
        assertFalse(WEB_XML_START.matcher("<dependency>\n  <groupId>g</groupId>\n</dependency>").find());
    }

    /** Serves the schemas by file name, whatever directory or URL the including schema names. */
    private static final class LocalSchemas implements LSResourceResolver {
        private final Map<String, byte[]> schemas;

        LocalSchemas(Map<String, byte[]> schemas) {
            this.schemas = schemas;
        }

        @Override
        public LSInput resolveResource(String type, String namespace, String publicId, String systemId, String base) {
            if (systemId == null) {
                return null;
            }
            String name = systemId.substring(systemId.lastIndexOf('/') + 1);
            byte[] schema = schemas.get(name);
            if (schema == null) {
                throw new IllegalStateException("schema not available offline: " + systemId);
            }
            return new Input(publicId, name, schema);
        }
    }

    private record Input(String publicId, String systemId, byte[] bytes) implements LSInput {
        @Override
        public java.io.Reader getCharacterStream() {
            return null;
        }

        @Override
        public void setCharacterStream(java.io.Reader characterStream) {
            throw new UnsupportedOperationException();
        }

        @Override
        public InputStream getByteStream() {
            return new ByteArrayInputStream(bytes);
        }

        @Override
        public void setByteStream(InputStream byteStream) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String getStringData() {
            return null;
        }

        @Override
        public void setStringData(String stringData) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String getPublicId() {
            return publicId;
        }

        @Override
        public void setPublicId(String publicId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String getSystemId() {
            return systemId;
        }

        @Override
        public void setSystemId(String systemId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String getBaseURI() {
            return null;
        }

        @Override
        public void setBaseURI(String baseUri) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String getEncoding() {
            return null;
        }

        @Override
        public void setEncoding(String encoding) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean getCertifiedText() {
            return false;
        }

        @Override
        public void setCertifiedText(boolean certifiedText) {
            throw new UnsupportedOperationException();
        }
    }
}
