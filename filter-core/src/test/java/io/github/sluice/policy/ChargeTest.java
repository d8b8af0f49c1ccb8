package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.key.KeyResolvers;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@code count=} and {@code skip=}: which statuses are charged, and every way to write them wrong. */
class ChargeTest {

    @Test
    void count_listedStatusesAndClasses_chargeOnlyThose() {
        Charge c = Charge.count("401,403,5xx");
        assertTrue(c.charges(401));
        assertTrue(c.charges(403));
        assertTrue(c.charges(500));
        assertTrue(c.charges(599));
        assertFalse(c.charges(200));
        assertFalse(c.charges(404));
        assertFalse(c.charges(0));
        assertFalse(c.always());
    }

    @Test
    void skip_listedClass_chargesEverythingElse() {
        Charge c = Charge.skip("5xx");
        assertFalse(c.charges(500));
        assertFalse(c.charges(503));
        assertTrue(c.charges(200));
        assertTrue(c.charges(429));
    }

    @Test
    void skipNone_isAlways() {
        assertEquals(Charge.ALWAYS, Charge.skip("none"));
        assertTrue(Charge.ALWAYS.charges(200));
    }

    @Test
    void intForms_equalTextForms() {
        assertEquals(Charge.count("401,403"), Charge.count(401, 403));
        assertEquals(Charge.skip("503"), Charge.skip(503));
        assertEquals("count=401,403", Charge.count(403, 401).toString());
        assertEquals("skip=5xx", Charge.skip("5XX").toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "count=abc; count; 'abc'",
        "count=600; count; 600",
        "count=099; count; 099",
        "count=6xx; count; 6xx",
        "count=401,,403; count; ''",
        "count=none; count; none",
        "skip=4x; skip; 4x",
        "skip=; skip; ''",
    })
    void parse_badStatuses_failNamingParameterAndValue(String option, String parameter, String item) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("login = fixed-window 3/1m key=ip " + option));
        assertTrue(e.getMessage().contains(parameter), e.getMessage());
        assertTrue(e.getMessage().contains(item.replace("'", "")), e.getMessage());
    }

    @Test
    void parse_countAndSkipTogether_fails() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Policy.parse("login = fixed-window 3/1m key=ip count=401 skip=5xx"));
        assertTrue(e.getMessage().contains("count and skip cannot be combined"), e.getMessage());
        assertTrue(e.getMessage().contains("5xx"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"concurrency 5 key=ip count=401", "adaptive gradient key=ip skip=5xx",
        "warm-up 3/1m warm-up=1m key=ip count=401", "shaping 3/1m key=ip skip=5xx"})
    void parse_algorithmsThatCannotRefundARequestInFlight_refuseCountingByOutcome(String spec) {
        ConfigException e = assertThrows(ConfigException.class, () -> Policy.parse("p = " + spec));
        assertTrue(e.getMessage().contains("applies to rate policies only")
                || e.getMessage().contains("needs an algorithm that refunds a request whatever ran meanwhile"), e.getMessage());
        assertTrue(e.getMessage().contains(spec.contains("count") ? "count" : "skip"), e.getMessage());
    }

    @Test
    void builder_concurrencyWithCharge_fails() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Policy.builder("p")
                .algorithm(Concurrency.of(5)).key(KeyResolvers.ip()).charge(Charge.count(401)).build());
        assertTrue(e.getMessage().contains("count applies to rate policies only"), e.getMessage());
        assertTrue(e.getMessage().contains("policy 'p'"), e.getMessage());
    }

    @Test
    void parse_equalsBuilder_andFormatsBack() {
        Policy parsed = Policy.parse("login = fixed-window 3/1m key=ip match=POST:/login count=401,403");
        Policy built = Policy.builder("login").algorithm(FixedWindow.of(3, Duration.ofMinutes(1)))
                .key(KeyResolvers.ip()).match("POST:/login").charge(Charge.count(401, 403)).build();
        assertEquals(built, parsed);
        assertEquals(parsed, Policy.parse(PolicyFormat.format(parsed)));
        assertTrue(PolicyFormat.format(parsed).contains(" count=401,403"), PolicyFormat.format(parsed));
        Policy skip = Policy.parse("api = token-bucket 100/1m key=ip skip=5xx");
        assertEquals(skip, Policy.parse(PolicyFormat.format(skip)));
        assertEquals(Charge.ALWAYS, Policy.parse("api = token-bucket 100/1m key=ip").charge());
    }
}
