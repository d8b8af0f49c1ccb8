package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every mistake in {@code cost=} and {@code cost-default=} fails at start-up, naming the parameter and the value. */
class RequestCostConfigTest {

    private static String error(String options) {
        return assertThrows(ConfigException.class,
                () -> Policy.parse("p = fixed-window 100/1m key=ip " + options)).getMessage();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', value = {
        "cost=header:#cost='header:': cost=header:<name> needs a header name (an HTTP token of at most 128 characters) but was ''",
        "cost=header:X(Cost#cost='header:X(Cost': cost=header:<name> needs a header name (an HTTP token of at most 128 characters) but was 'X(Cost'",
        "cost=bean:#cost='bean:': cost=bean:<name> needs a name without whitespace, ':' or '|' (at most 128 characters) but was ''",
        "cost=body:0#cost='body:0': the unit of cost=body must be between 1 byte and 9223372036854775807B but was '0'",
        "cost=body:1kb#cost='body:1kb': the unit of cost=body must be a size such as 1KiB, 64KiB, 1MiB or 512 (bytes), but was '1kb'",
        "cost=body:99999999999GiB#cost='body:99999999999GiB': the unit of cost=body must be between 1 byte and 8589934591GiB but was '99999999999GiB'",
        "cost=bodies#cost='bodies': cost must be a whole number (e.g. 5), header:<name>, body, body:<size> (e.g. body:64KiB) or bean:<name>, but was 'bodies'",
        "cost=0#cost='0': cost must be >= 1 but was 0 (policy 'p')",
        "cost=101#cost='101': cost is too large: at most the limit, 100",
        "cost=header:X-Cost cost-default=0#cost-default='0': cost-default must be >= 1 but was 0 (a bad cost is never free)",
        "cost=header:X-Cost cost-default=-1#cost-default='-1': cost-default must be >= 1 but was -1 (a bad cost is never free)",
        "cost=header:X-Cost cost-default=x#cost-default='x': cost-default must be a whole number, e.g. 20",
        "cost=header:X-Cost cost-default=101#cost-default='101': cost-default is too large: at most the limit, 100",
        "cost=5 cost-default=2#cost-default='2': cost-default applies to a cost read from the request (cost=header:<name>, cost=body, cost=bean:<name>), but the cost is the constant 5, which is never bad",
        "cost-default=2#cost-default='2': cost-default applies to a cost read from the request (cost=header:<name>, cost=body, cost=bean:<name>), but the cost is the default 1, which is never bad",
    })
    void badCostOption_failsNamingParameterAndValue(String options, String expected) {
        assertEquals("policy line 1 (policy 'p'): " + expected, error(options));
    }

    @Test
    void costForms_parseToTheirSources() {
        assertEquals(RequestCost.header("X-Cost"), Policy.parse("p = fixed-window 100/1m key=ip cost=header:X-Cost").requestCost());
        assertEquals(RequestCost.body(1024), Policy.parse("p = fixed-window 100/1m key=ip cost=body").requestCost());
        assertEquals(RequestCost.body(1024), Policy.parse("p = fixed-window 100/1m key=ip cost=body:1KiB").requestCost());
        assertEquals(RequestCost.body(1_000_000), Policy.parse("p = fixed-window 100/1m key=ip cost=body:1MB").requestCost());
        assertEquals(RequestCost.bean("f").orElse(7), Policy.parse("p = fixed-window 100/1m key=ip cost=bean:f cost-default=7").requestCost());
        assertEquals(1, Policy.parse("p = fixed-window 100/1m key=ip cost=header:X-Cost").cost());
    }
}
