package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.request.RequestView;
import io.github.sluice.testing.FakeRequest;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class KeyResolversTest {

    @Test
    void header_firstLineStripped_isTheKey() {
        FakeRequest r = FakeRequest.get("/").header("X-Api-Key", "  k-123 ").header("X-Api-Key", "k-999");

        assertEquals("k-123", KeyResolvers.header("X-Api-Key").resolve(r));
        assertEquals("k-123", KeyResolvers.header("x-api-key").resolve(r), "header names are case-insensitive");
    }

    @Test
    void header_absentOrBlank_yieldsNoKey() {
        assertNull(KeyResolvers.header("X-Api-Key").resolve(FakeRequest.get("/")));
        assertNull(KeyResolvers.header("X-Api-Key").resolve(FakeRequest.get("/").header("X-Api-Key", " \t")));
    }

    @Test
    void clientHeaders_namesEveryHeaderAKeyIsReadFrom() {
        assertEquals(java.util.List.of("X-Tier"), KeyResolvers.clientHeaders(KeyResolvers.header("X-Tier")));
        assertEquals(java.util.List.of("X-A", "X-B"), KeyResolvers.clientHeaders(KeyResolvers.firstOf(
                KeyResolvers.header("X-A"), KeyResolvers.principal(), KeyResolvers.header("X-B"), KeyResolvers.ip())));
        assertEquals(java.util.List.of(), KeyResolvers.clientHeaders(KeyResolvers.firstOf(KeyResolvers.principal(),
                KeyResolvers.attribute("tier"), KeyResolvers.bean("b"), KeyResolvers.ip())));
    }

    @Test
    void principalAndAttribute_areVerbatim_emptyYieldsNoKey() {
        assertEquals(" alice\t", KeyResolvers.principal().resolve(FakeRequest.get("/").principal(" alice\t")));
        assertEquals(" acme ", KeyResolvers.attribute("t").resolve(FakeRequest.get("/").attribute("t", " acme ")));
        assertNull(KeyResolvers.attribute("t").resolve(FakeRequest.get("/").attribute("t", "")));
    }

    @Test
    void header_onlySpacesAndTabsAroundTheValueAreRemoved() {
        KeyResolver h = KeyResolvers.header("X-Api-Key");
        assertEquals("k", h.resolve(FakeRequest.get("/").header("X-Api-Key", " \tk \t")));
        assertEquals("\u000Bk\u00A0", h.resolve(FakeRequest.get("/").header("X-Api-Key", "\u000Bk\u00A0")));
        assertEquals("\u3000", h.resolve(FakeRequest.get("/").header("X-Api-Key", "\u3000")));
    }

    @Test
    void principal_authenticatedOrNot() {
        assertEquals("alice", KeyResolvers.principal().resolve(FakeRequest.get("/").principal("alice")));
        assertNull(KeyResolvers.principal().resolve(FakeRequest.get("/")));
        assertNull(KeyResolvers.principal().resolve(FakeRequest.get("/").principal("")));
    }

    @Test
    void attribute_usesToStringOfTheValue() {
        assertEquals("42", KeyResolvers.attribute("tenant").resolve(FakeRequest.get("/").attribute("tenant", 42)));
        assertNull(KeyResolvers.attribute("tenant").resolve(FakeRequest.get("/")));
    }

    @Test
    void constantAndGlobal_sameKeyForEveryRequest() {
        assertEquals("global", KeyResolvers.global().resolve(FakeRequest.get("/a")));
        assertEquals("shared", KeyResolvers.constant("shared").resolve(FakeRequest.get("/b")));
    }

    @Test
    void firstOf_fallsBackInOrder_andTagsTheSource() {
        KeyResolver chain = KeyResolvers.firstOf(KeyResolvers.principal(), KeyResolvers.header("X-Api-Key"),
                KeyResolvers.ip());

        assertEquals("principal:alice", chain.resolve(FakeRequest.get("/").principal("alice").header("X-Api-Key", "k")));
        assertEquals("header:X-Api-Key:k", chain.resolve(FakeRequest.get("/").header("X-Api-Key", "k")));
        assertEquals("ip:192.0.2.1", chain.resolve(FakeRequest.get("/").peer("192.0.2.1")));
    }

    @Test
    void firstOf_apiKeyEqualToSomeonesAddress_doesNotShareTheirKey() {
        KeyResolver chain = KeyResolvers.firstOf(KeyResolvers.header("X-Api-Key"), KeyResolvers.ip());

        String victim = chain.resolve(FakeRequest.get("/").peer("192.0.2.1"));
        String attacker = chain.resolve(FakeRequest.get("/").peer("198.51.100.1").header("X-Api-Key", "192.0.2.1"));

        assertNotEquals(victim, attacker);
    }

    @Test
    void firstOf_allEmpty_yieldsNoKey() {
        KeyResolver chain = KeyResolvers.firstOf(KeyResolvers.principal(), KeyResolvers.header("X-Api-Key"));

        assertNull(chain.resolve(FakeRequest.get("/")));
    }

    @Test
    void custom_throwingFunction_yieldsNoKeyInsteadOfFailingTheRequest() {
        KeyResolver custom = KeyResolvers.custom("boom", r -> {
            throw new IllegalStateException("bug");
        });

        assertNull(custom.resolve(FakeRequest.get("/")));
        assertEquals("/x", KeyResolvers.custom("path", RequestView::path).resolve(FakeRequest.get("/x")));
    }

    @Test
    void values_equalConfigurationsAreEqual_andPrintInTheConfigLanguage() {
        assertEquals(KeyResolvers.header("X-Api-Key"), KeyResolvers.header("X-Api-Key"));
        assertEquals(KeyResolvers.firstOf(KeyResolvers.principal(), KeyResolvers.ip()),
                KeyResolvers.firstOf(KeyResolvers.principal(), KeyResolvers.ip()));
        assertEquals("principal|header:X-Api-Key|ip",
                KeyResolvers.firstOf(KeyResolvers.principal(), KeyResolvers.header("X-Api-Key"), KeyResolvers.ip())
                        .toString());
        assertEquals("attribute:tenant", KeyResolvers.attribute("tenant").toString());
        assertEquals("global", KeyResolvers.global().toString());
        assertEquals("constant:x", KeyResolvers.constant("x").toString());
        Function<RequestView, String> f = RequestView::path;
        assertEquals(KeyResolvers.custom("p", f), KeyResolvers.custom("p", f));
        assertTrue(KeyResolvers.custom("p", f).toString().startsWith("custom:"));
    }

    @Test
    void factories_invalidArguments_failWithTheRule() {
        assertEquals("header name must be an HTTP token but was 'X Api'",
                assertThrows(IllegalArgumentException.class, () -> KeyResolvers.header("X Api")).getMessage());
        assertEquals("constant must not contain whitespace, '|' or control characters but was 'a b'",
                assertThrows(IllegalArgumentException.class, () -> KeyResolvers.constant("a b")).getMessage());
        assertEquals("a key fallback chain must have at least 2 resolvers but had 1",
                assertThrows(IllegalArgumentException.class, () -> KeyResolvers.firstOf(KeyResolvers.ip())).getMessage());
        assertThrows(NullPointerException.class, () -> KeyResolvers.header(null));
        assertThrows(NullPointerException.class, () -> KeyResolvers.custom("x", null));
    }
}
