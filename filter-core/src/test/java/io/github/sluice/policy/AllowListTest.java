package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.key.ClientAddress;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class AllowListTest {

    private static final ClientAddress PROXIED = ClientAddress.builder().trustedProxies("10.0.0.0/8").build();

    @Test
    void allows_networkEntry_matchesTheClientAddressThroughTrustedProxies() {
        AllowList list = AllowList.of("192.0.2.0/24");
        FakeRequest viaProxy = FakeRequest.get("/").peer("10.0.0.1").header("X-Forwarded-For", "192.0.2.55");
        FakeRequest spoofed = FakeRequest.get("/").peer("198.51.100.1").header("X-Forwarded-For", "192.0.2.55");

        assertTrue(list.allows("whatever", viaProxy, PROXIED));
        assertFalse(list.allows("whatever", spoofed, PROXIED), "an untrusted peer cannot claim an allowed address");
    }

    @Test
    void allows_keyEntry_matchesTheResolvedKey() {
        AllowList list = AllowList.of("partner-key", "2001:db8::/32");

        assertTrue(list.allows("partner-key", FakeRequest.get("/"), ClientAddress.DIRECT));
        assertFalse(list.allows("other", FakeRequest.get("/"), ClientAddress.DIRECT));
        assertTrue(list.allows("other", FakeRequest.get("/").peer("2001:db8:5::1"), ClientAddress.DIRECT));
        assertFalse(list.allows(null, FakeRequest.get("/").peer("garbage"), ClientAddress.DIRECT));
    }

    @Test
    void of_entries_areSortedIntoNetworksAndKeys() {
        AllowList list = AllowList.of(List.of(" 10.0.0.0/8 ", "192.0.2.7", "abc"));

        assertEquals("10.0.0.0/8,192.0.2.7/32,abc", list.toString());
        assertEquals(AllowList.of("10.0.0.0/8", "192.0.2.7", "abc"), list);
        assertSame(AllowList.NONE, AllowList.of());
        assertTrue(AllowList.NONE.isEmpty());
    }

    @Test
    void of_keysThatAreNotAddresses_areKeysEvenWithDigitsAndColons() {
        AllowList list = AllowList.of("12345", "partner:abc", "ip:192.0.2.1", "ip:2001:db8:1:2::/64",
                "attribute:tenant:acme", "header:X-Api-Key:k-1", "2024-01", "a/b+c=");

        assertEquals(List.of(), list.networks());
        assertEquals(8, list.keys().size());
        assertTrue(list.allows("ip:2001:db8:1:2::/64", FakeRequest.get("/"), ClientAddress.DIRECT));
    }

    @Test
    void of_invalidEntry_failsWithTheRule() {
        assertEquals("allow entry must not contain whitespace, '|' or control characters but was 'a b'",
                assertThrows(IllegalArgumentException.class, () -> AllowList.of("a b")).getMessage());
        assertEquals("allow entry must not be empty",
                assertThrows(IllegalArgumentException.class, () -> AllowList.of(" ")).getMessage());
    }
}
