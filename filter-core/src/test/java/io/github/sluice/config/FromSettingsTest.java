package io.github.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.policy.ConfigException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link SluiceConfig#fromSettings}: settings a framework collected by name (Spring Boot's
 * {@code sluice.*}) are read with the init-params' rules, and each error names the setting as
 * the framework's user wrote it.
 */
class FromSettingsTest {

    private static String source(String name) {
        return "property 'app." + name + "'";
    }

    @Test
    void settings_inMapOrder_withTheirValues() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("policy.b", "token-bucket 10/1s key=ip");
        settings.put("policy.a", "fixed-window 5/1m key=header:X-Api-Key");
        settings.put("headers", "x-ratelimit");
        Enforcer e = SluiceConfig.fromSettings(settings, FromSettingsTest::source)
                .listener(EnforcementListener.NONE).build();
        assertEquals("b", e.policies().get(0).name());
        assertEquals("a", e.policies().get(1).name());
        assertEquals(HeaderStyle.X_RATELIMIT, e.headerOptions().style());
    }

    @Test
    void badValue_isNamedByItsSource() {
        ConfigException error = assertThrows(ConfigException.class, () -> SluiceConfig.fromSettings(
                Map.of("policy.per-ip", "token-bucket 0/1s key=ip"), FromSettingsTest::source));
        assertTrue(error.getMessage().startsWith("property 'app.policy.per-ip' (policy 'per-ip')"), error.getMessage());
        ConfigException setting = assertThrows(ConfigException.class, () -> SluiceConfig.fromSettings(
                Map.of("ipv6-prefix", "129"), FromSettingsTest::source));
        assertEquals("property 'app.ipv6-prefix': ipv6-prefix='129': ipv6-prefix is too large: at most 128",
                setting.getMessage());
    }

    @Test
    void unknownSetting_isRefusedWithASuggestion() {
        ConfigException error = assertThrows(ConfigException.class, () -> SluiceConfig.fromSettings(
                Map.of("trusted-proxy", "10.0.0.0/8"), FromSettingsTest::source));
        assertTrue(error.getMessage().contains("did you mean 'trusted-proxies'?"), error.getMessage());
    }
}
