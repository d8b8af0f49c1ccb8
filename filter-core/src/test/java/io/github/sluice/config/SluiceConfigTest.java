package io.github.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.DenialBody;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.http.LoggingListener;
import io.github.sluice.http.ProblemBody;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.ForwardedHeader;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SluiceConfigTest {

    @Test
    void defaults_areDocumented() {
        try (Enforcer c = SluiceConfig.fromInitParams(name -> null).build();
                ShardedRegistry plain = ShardedRegistry.builder().build()) {
            ShardedRegistry store = assertInstanceOf(ShardedRegistry.class, c.store());

            assertEquals(List.of(), c.policies());
            assertEquals(ClientAddress.DIRECT, c.clientAddress());
            assertEquals(HeaderOptions.DEFAULT, c.headerOptions());
            assertSame(ProblemBody.standard(), c.denialBody());
            assertEquals(128, c.maxKeyLength());
            assertEquals(128, store.maxKeyLength());
            assertEquals(0, store.maxKeys(), "derived from the memory budget");
            assertEquals(256L << 20, store.memoryBudget());
            assertEquals(plain.shards(), store.shards(), "the registry's own default");
            assertInstanceOf(LoggingListener.class, c.listener());
        }
    }

    @Test
    void fromInitParams_everySetting() {
        Map<String, String> p = new HashMap<>();
        p.put("policies", "per-ip = token-bucket 100/1m key=ip\ninflight = fixed-window 50/1s key=global status=503");
        p.put("headers", "x-ratelimit");
        p.put("headers-on", "denial");
        p.put("expose-headers", "true");
        p.put("degraded-header", "Sluice-Degraded");
        p.put("trusted-proxies", "10.0.0.0/8 2001:db8::/32,192.0.2.1");
        p.put("forwarded-header", "forwarded");
        p.put("ipv6-prefix", "56");
        p.put("dry-run", "true");
        p.put("problem-type", "https://example.com/limits");
        p.put("max-key-length", "64");
        p.put("max-keys", "1000");
        p.put("memory-budget", "64m");
        p.put("shards", "8");
        p.put("listener", "none");

        Enforcer c = SluiceConfig.fromInitParams(p::get, p.keySet()).build();

        ClientAddress ip = ClientAddress.builder().trustedProxies("10.0.0.0/8", "2001:db8::/32", "192.0.2.1")
                .header(ForwardedHeader.FORWARDED).ipv6Prefix(56).build();
        assertEquals(ip, c.clientAddress());
        assertEquals(List.of(
                Policy.parse("per-ip = token-bucket 100/1m key=ip dry-run").toBuilder().key(ip).build(),
                Policy.parse("inflight = fixed-window 50/1s key=global status=503 dry-run")), c.policies());
        assertEquals(new HeaderOptions(HeaderStyle.X_RATELIMIT, true, true, "Sluice-Degraded"), c.headerOptions());
        assertEquals(ProblemBody.withType("https://example.com/limits"), c.denialBody());
        assertEquals(64, c.maxKeyLength());
        ShardedRegistry store = (ShardedRegistry) c.store();
        assertEquals(64, store.maxKeyLength());
        assertEquals(1000, store.maxKeys());
        assertEquals(64L << 20, store.memoryBudget());
        assertEquals(8, store.shards());
        assertSame(EnforcementListener.NONE, c.listener());
    }

    @Test
    void fromInitParams_denialBody_replacesTheProblem() throws Exception {
        Map<String, String> p = Map.of("policies", "a = token-bucket 1/1m key=global",
                "denial-body", "{\"error\":\"slow down\"}", "denial-content-type", "application/json");
        Enforcer e = SluiceConfig.fromInitParams(p::get).build();
        e.enforce(FakeRequest.get("/"));
        RecordingResponse r = new RecordingResponse();

        e.enforce(FakeRequest.get("/")).writeDenial(r, r);

        assertEquals("application/json", r.headers.get("Content-Type"));
        assertEquals("{\"error\":\"slow down\"}", r.bodyText());
    }

    @Test
    void fromInitParams_denialBodyAlone_isPlainText() {
        DenialBody body = SluiceConfig.fromInitParams(Map.of("denial-body", "slow down")::get).build().denialBody();

        assertEquals("text/plain; charset=utf-8", body.contentType(null));
    }

    @Test
    void fromInitParams_classpathFile_thenInitParamsOverride() {
        Map<String, String> p = Map.of("config", "classpath:/sluice-test.properties", "headers", "none",
                "policies", "extra = token-bucket 1/1s key=global");

        Enforcer c = SluiceConfig.fromInitParams(p::get).build();

        assertEquals(HeaderStyle.NONE, c.headerOptions().style());
        assertEquals(List.of("per-ip", "login", "extra"), c.policies().stream().map(Policy::name).toList());
        ClientAddress ip = ClientAddress.builder().trustedProxies("10.0.0.0/8", "192.168.0.0/16").build();
        assertEquals(Policy.parse("login = fixed-window 5/1m key=ip match=POST:/login").toBuilder().key(ip).build(),
                c.policies().get(1));
    }

    @Test
    void fromProperties_fileSystemPath(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("limits.properties");
        Files.writeString(file, "policy.a = token-bucket 5/1s key=ip\nheaders-on = denial\n");

        Enforcer c = SluiceConfig.fromProperties(file.toString()).build();
        Enforcer viaPrefix = SluiceConfig.fromProperties("file:" + file).build();

        assertEquals(List.of(Policy.parse("a = token-bucket 5/1s key=ip")), c.policies());
        assertTrue(c.headerOptions().onlyOnDenial());
        assertEquals(c.policies(), viaPrefix.policies());
    }

    @Test
    void parseProperties_escapesAndContinuations() {
        Enforcer c = SluiceConfig.parseProperties(
                "! comment\n  policy.a=token-bucket 5/1s \\\n   key=header:X-Api-Key\ndenial-body=caf\\u00e9\\tok\n", "t").build();

        assertEquals(List.of(Policy.parse("a = token-bucket 5/1s key=header:X-Api-Key")), c.policies());
        assertEquals("text/plain; charset=utf-8", c.denialBody().contentType(null));
        assertEquals("café\tok", new String(c.denialBody().body(null), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void builder_inCode_equalsTheParsedConfiguration() {
        Enforcer code = Enforcer.builder().trustedProxies("10.0.0.0/8")
                .policies("a = token-bucket 5/1s key=ip").build();
        Enforcer text = SluiceConfig.fromInitParams(
                Map.of("trusted-proxies", "10.0.0.0/8", "policies", "a = token-bucket 5/1s key=ip")::get).build();

        assertEquals(text.policies(), code.policies());
        assertEquals(text.clientAddress(), code.clientAddress());
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
        "headers = draft-07 => t line 1: headers='draft-07': headers must be one of draft, draft-06, x-ratelimit, none but was 'draft-07'; did you mean 'draft-06'?",
        "headers-on = sometimes => t line 1: headers-on='sometimes': headers-on must be always or denial",
        "expose-headers = yes => t line 1: expose-headers='yes': expose-headers must be true or false",
        "degraded-header = Bad Header => t line 1: degraded-header='Bad Header': degraded-header must be an HTTP field name but was 'Bad Header'",
        "trusted-proxies = 10.0.0.0/8, 10.0.0/8 => t line 1: trusted-proxies='10.0.0/8': CIDR '10.0.0/8': an IPv4 address has 4 octets but this has 3",
        "forwarded-header = x-real-ip => t line 1: forwarded-header='x-real-ip': forwarded-header must be x-forwarded-for or forwarded",
        "ipv6-prefix = 129 => t line 1: ipv6-prefix='129': ipv6-prefix is too large: at most 128",
        "ipv6-prefix = /64 => t line 1: ipv6-prefix='/64': ipv6-prefix must be a whole number, e.g. 64",
        "dry-run = on => t line 1: dry-run='on': dry-run must be true or false",
        "problem-type = a b => t line 1: problem-type='a b': problem-type must be a URI but was 'a b'",
        "denial-content-type = text/plain => t line 1: denial-content-type='text/plain': denial-content-type needs denial-body (the problem document is always application/problem+json)",
        "max-key-length = 20 => t line 1: max-key-length='20': max-key-length must be between 40 and 4096 but was 20",
        "max-keys = 0 => t line 1: max-keys='0': max-keys must be >= 1 but was 0",
        "memory-budget = 256MB => t line 1: memory-budget='256MB': memory-budget must be a whole number of bytes, optionally followed by k, m or g (as in 256m)",
        "memory-budget = 0 => t line 1: memory-budget='0': memory-budget must be >= 1 byte but was 0",
        "memory-budget = 9000000000g => t line 1: memory-budget='9000000000g': memory-budget is too large (at most 8589934591g)",
        "shards = 3 => t line 1: shards='3': shards must be a power of two between 1 and 65536 but was 3",
        "listener = jul => t line 1: listener='jul': listener must be log or none",
        "colour = blue => t line 1: colour='blue': unknown setting; known settings: [config, config-reload, config-watch, config-watch-interval, degraded-header, denial-body, denial-content-type, dry-run, exempt-methods, expose-headers, forwarded-header, headers, headers-on, ipv6-prefix, listener, max-key-length, max-keys, memory-budget, no-policies, policies, problem-type, shards, top-clients, top-clients-admitted, trusted-proxies] and policy.<name>",
        "policies = a = token-bucket 1/s key=ip => t line 1: policies='a = token-bucket 1/s key=ip': 'policies' is an init-param only; in a properties file write one policy.<name> = ... per policy",
        "config = other.properties => t line 1: config='other.properties': 'config' is an init-param only; in a properties file write one policy.<name> = ... per policy",
        "policy.A = token-bucket 1/s key=ip => t line 1: name='A': policy name must match [a-z0-9-]{1,64} but was 'A'; did you mean 'a'?",
        "policy.a = token-bucket 1/s burst=0 key=ip => t line 1 (policy 'a'): burst='0': burst must be >= 1 but was 0",
        "denial-body = x\\u00zz => t line 1: escape='\\u00zz': a unicode escape must be followed by 4 hex digits",
    })
    void parseProperties_invalid_namesLineParameterAndValue(String text, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> SluiceConfig.parseProperties(text, "t"));

        assertEquals(message, e.getMessage());
    }

    @Test
    void parseProperties_errorOnLaterLine_namesThatLine() {
        ConfigException e = assertThrows(ConfigException.class, () -> SluiceConfig.parseProperties(
                "# one\nheaders = draft\n\nheaders-on = never\n", "sluice.properties"));

        assertEquals(4, e.line());
        assertEquals("sluice.properties line 4: headers-on='never': headers-on must be always or denial", e.getMessage());
    }

    @Test
    void problemTypeWithDenialBody_isAContradiction() {
        Map<String, String> p = Map.of("denial-body", "x", "problem-type", "https://example.com");

        assertEquals("init-param 'problem-type': problem-type='https://example.com': problem-type cannot be combined "
                + "with denial-body, which replaces the problem document",
                assertThrows(ConfigException.class, () -> SluiceConfig.fromInitParams(p::get)).getMessage());
    }

    @Test
    void denialContentTypeInvalid_isRefused() {
        Map<String, String> p = Map.of("denial-body", "x", "denial-content-type", " ");

        assertEquals("init-param 'denial-content-type': denial-content-type='': denial-content-type must be a "
                + "single-line media type but was ''",
                assertThrows(ConfigException.class, () -> SluiceConfig.fromInitParams(p::get)).getMessage());
    }

    @Test
    void unknownInitParam_failsWhenNamesAreGiven() {
        Map<String, String> p = Map.of("header", "draft");

        ConfigException e = assertThrows(ConfigException.class, () -> SluiceConfig.fromInitParams(p::get, p.keySet()));

        assertTrue(e.getMessage().startsWith("init-param 'header': header='draft': unknown setting; "
                + "did you mean 'headers'? Known settings: ["), e.getMessage());
    }

    @Test
    void missingFile_namesTheLocation() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> SluiceConfig.fromInitParams(Map.of("config", "classpath:nope.properties")::get));

        assertEquals("init-param 'config': config='classpath:nope.properties': cannot read the properties file: "
                + "no resource 'nope.properties' on the class path", e.getMessage());
    }

    @Test
    void samePolicyInFileAndInitParam_initParamOverridesInTheFilesPlace() {
        List<Policy> fileOnly;
        try (Enforcer e = SluiceConfig.fromInitParams(Map.of("config", "classpath:sluice-test.properties")::get)
                .build()) {
            fileOnly = e.policies();
        }
        Map<String, String> p = Map.of("config", "classpath:sluice-test.properties",
                "policies", "per-ip = token-bucket 1/1s key=ip\nextra = token-bucket 2/1s key=ip");

        List<Policy> policies;
        try (Enforcer e = SluiceConfig.fromInitParams(p::get).build()) {
            policies = e.policies();
        }

        List<String> expected = new java.util.ArrayList<>();
        fileOnly.forEach(q -> expected.add(q.name()));
        expected.add("extra");
        assertEquals(expected, policies.stream().map(Policy::name).toList());
        Policy perIp = policies.get(expected.indexOf("per-ip"));
        assertEquals(1, perIp.algorithm().limit(), perIp.toString());
    }

    @Test
    void samePolicyTwiceInInitParams_isRefused() {
        Map<String, String> p = Map.of("config", "classpath:sluice-test.properties",
                "policies", "x = token-bucket 1/1s key=ip", "policy.x", "token-bucket 2/1s key=ip");

        ConfigException e = assertThrows(ConfigException.class, () -> SluiceConfig.fromInitParams(p::get, p.keySet()));

        assertTrue(e.getMessage().contains("policy names must be unique but 'x' is also defined in"), e.getMessage());
    }

    @Test
    void policyLineErrorInInitParam_namesTheParamAndLine() {
        Map<String, String> p = Map.of("policies", "a = token-bucket 1/1s key=ip\nb = token-bucket 1/1s key=nope");

        ConfigException e = assertThrows(ConfigException.class, () -> SluiceConfig.fromInitParams(p::get));

        assertTrue(e.getMessage().startsWith("init-param 'policies' line 2 (policy 'b'): key='nope': "), e.getMessage());
    }

    // ---- newEnforcer: the start-up the servlet filter and the JAX-RS feature share ------------

    private static final List<String> NAMES = List.of("policies", "max-keys", "trusted-proxies");

    @Test
    void newEnforcer_withoutAStore_ownsANewRegistryConfiguredByTheSettings() {
        Map<String, String> p = Map.of("policies", "a = token-bucket 1/1m key=ip", "max-keys", "1000");

        try (Enforcer e = SluiceConfig.newEnforcer(p::get, p.keySet(), null, "attribute 's'")) {
            assertEquals(1000, ((ShardedRegistry) e.store()).maxKeys("a"));
        }
    }

    @Test
    void newEnforcer_withAStore_keepsThePoliciesThere() {
        Map<String, String> p = Map.of("policies", "a = token-bucket 1/1m key=ip", "trusted-proxies", "10.0.0.0/8");
        try (ShardedRegistry store = ShardedRegistry.builder().build()) {
            Enforcer e = SluiceConfig.newEnforcer(p::get, p.keySet(), store, "attribute 's'");

            assertSame(store, e.store());
            assertEquals(ClientAddress.builder().trustedProxies("10.0.0.0/8").build(), e.policies().get(0).key());
        }
    }

    @Test
    void newEnforcer_registrySettingWithAStore_failsNamingTheParamTheValueAndWhereTheStoreCameFrom() {
        Map<String, String> p = Map.of("policies", "a = token-bucket 1/1m key=ip", "max-keys", "1000");
        try (ShardedRegistry store = ShardedRegistry.builder().build()) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> SluiceConfig.newEnforcer(p::get, NAMES, store, "property 'sluice.store'"));

            assertEquals("init-param 'max-keys': max-keys='1000': max-keys configures the in-memory store, but "
                    + "property 'sluice.store' holds a store of its own (" + store + "); remove max-keys",
                    e.getMessage());
        }
    }

    @Test
    void newEnforcer_somethingElseWhereTheStoreBelongs_failsNamingIt() {
        Map<String, String> p = Map.of("policies", "a = token-bucket 1/1m key=ip");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SluiceConfig.newEnforcer(p::get, NAMES, "redis://localhost", "property 'sluice.store'"));

        assertEquals("property 'sluice.store' must hold a io.github.sluice.store.Store but held a java.lang.String",
                e.getMessage());
    }

    @Test
    void loadedBuilder_canStillBeAdjusted_andIpKeysTakeSettingsGivenAfterwards() {
        Enforcer.Builder b = SluiceConfig.parseProperties("policy.a = token-bucket 1/1m key=ip\n", "t");

        Enforcer e = b.trustedProxies("10.0.0.0/8").listener(EnforcementListener.NONE).build();

        assertEquals(ClientAddress.builder().trustedProxies("10.0.0.0/8").build(), e.policies().get(0).key());
        assertSame(EnforcementListener.NONE, e.listener());
    }
}
