package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link NettyFields} against Netty's own headers: what it writes is what a {@code String} write
 * would have left, whichever path a value takes (pre-encoded, or as it is once the slots are
 * taken), and its reading is Spring's {@code getFirst} and every line.
 */
class NettyFieldsTest {

    @Test
    void policyValues_ofManySetsOfPolicies_beyondTheSlots_eachWrittenAsItIs() {
        HttpHeaders headers = new DefaultHttpHeaders();
        for (int round = 0; round < 3; round++) {
            for (int set = 0; set < 40; set++) {
                String value = "\"set-" + set + "\";q=" + (set + 1) + ";w=60";

                NettyFields.set(headers, "RateLimit-Policy", value, false);

                assertEquals(List.of(value), headers.getAll("ratelimit-policy"), "set " + set + ", round " + round);
            }
        }
    }

    @Test
    void set_replacesEveryLineOfTheName_whateverItsCase() {
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.add("ratelimit", "\"outer\";r=9");
        headers.add("RATELIMIT", "\"other\";r=1");

        NettyFields.set(headers, "RateLimit", "\"outer\";r=8, \"per-ip\";r=4;t=10", true);

        assertEquals(List.of("\"outer\";r=8, \"per-ip\";r=4;t=10"), headers.getAll("RateLimit"));
    }

    @Test
    void existing_noLine_null_oneLine_itself_severalLines_joinedInOrder() {
        HttpHeaders headers = new DefaultHttpHeaders();
        assertNull(NettyFields.existing(headers, "RateLimit-Policy"));

        headers.add("ratelimit-policy", "\"outer\";q=100;w=60");
        assertEquals("\"outer\";q=100;w=60", NettyFields.existing(headers, "RateLimit-Policy"));

        headers.add("Access-Control-Expose-Headers", "X-Trace");
        headers.add("access-control-expose-headers", "RateLimit, RateLimit-Policy");
        assertEquals("X-Trace, RateLimit, RateLimit-Policy", NettyFields.existing(headers, "Access-Control-Expose-Headers"));
    }
}
