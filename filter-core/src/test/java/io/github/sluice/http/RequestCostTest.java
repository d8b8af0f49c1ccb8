package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Outcome;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.RequestCost;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A policy's cost read from the request ({@code cost=header:}, {@code body}, {@code bean:}):
 * charged as read, a bad one refused with 400/411 or charged the default, one above the limit
 * refused at once (413 for a body), never with a Retry-After and never touching the store.
 */
class RequestCostTest {

    private final EnforcerFixture fixture = new EnforcerFixture();

    private static FakeRequest withCost(String value) {
        return FakeRequest.get("/").header("X-Cost", value);
    }

    private static RecordingResponse denial(Verdict v) throws Exception {
        RecordingResponse r = new RecordingResponse();
        v.writeDenial(r, r);
        return r;
    }

    // ---- charged as read ---------------------------------------------------------------------

    @Test
    void headerCost_valid_chargesThatManyPermits_untilTheLimit() {
        Enforcer e = fixture.enforcer("p = fixed-window 10/1m key=ip cost=header:X-Cost");

        Verdict first = e.enforce(withCost("4"));
        Verdict second = e.enforce(withCost(" 0004\t")); // optional whitespace and leading zeros
        Verdict third = e.enforce(withCost("4"));

        assertTrue(first.admitted());
        assertEquals(4, first.cost(0));
        assertEquals(6, first.decision(0).remaining());
        assertEquals(2, second.decision(0).remaining());
        assertTrue(third.denied(), "4 more than the 2 left");
        assertEquals(429, third.status());
        assertTrue(third.retryable(0));
        assertTrue(EnforcerFixture.headers(third).headers.containsKey("Retry-After"));
        assertTrue(e.enforce(withCost("2")).admitted(), "the refused 4 took nothing");
    }

    @Test
    void bodyCost_chargesOnePermitPerUnitRoundedUp_andAnEmptyBodyOne() {
        Enforcer e = fixture.enforcer("p = fixed-window 1000/1m key=ip cost=body:1KiB");
        long[][] cases = {{0, 1}, {1, 1}, {1024, 1}, {1025, 2}, {10 * 1024, 10}, {1024 * 1000, 1000}};
        for (long[] c : cases) {
            Verdict v = e.enforce(FakeRequest.get("/u").method("POST").peer("10.0.0." + c[0] % 250)
                    .header("Content-Length", Long.toString(c[0])));
            assertEquals(c[1], v.cost(0), "Content-Length " + c[0]);
        }
    }

    @Test
    void beanCost_chargesWhatTheFunctionReturns() {
        Enforcer e = fixture.builder("p = fixed-window 10/1m key=ip cost=bean:pages")
                .costFunction("pages", r -> Long.parseLong(r.header("X-Pages")) * 2).build();

        Verdict v = e.enforce(FakeRequest.get("/").header("X-Pages", "3"));

        assertEquals(6, v.cost(0));
        assertEquals(4, v.decision(0).remaining());
    }

    // ---- bad costs -----------------------------------------------------------------------------

    /** Every header a hostile client may send in place of a cost, each refused with 400. */
    static final List<String> BAD_HEADERS = List.of("", " ", "\t", "abc", "-1", "-0", "+1", "0", "000", "1.5",
            "1.0", "1e3", "0x10", "3,3", "3 3", "1_000", "\u0663", "\uff13", "5\u00a0", "\u00a05", "5;q=1",
            "NaN", "Infinity", "5\r\n", "5\u0000");

    @Test
    void headerCost_bad_refusedWith400AndAProblemBody_withoutRetryAfter_andTakingNothing() throws Exception {
        Enforcer e = fixture.enforcer("p = fixed-window 10/1m key=ip cost=header:X-Cost");
        for (String bad : BAD_HEADERS) {
            Verdict v = e.enforce(withCost(bad));

            assertTrue(v.denied(), "'" + bad + "' must be refused");
            assertEquals(400, v.status(), bad);
            assertFalse(v.retryable(0), bad);
            RecordingResponse r = denial(v);
            assertNull(r.headers.get("Retry-After"), "a Retry-After would tell the client to send it again: " + bad);
            assertEquals("application/problem+json", r.headers.get("Content-Type"));
            assertEquals("\"p\";r=0;t=0", r.headers.get("RateLimit"), "the store was not read");
            assertTrue(r.bodyText().contains("\"status\":400"), r.bodyText());
            assertTrue(r.bodyText().contains("cost for policy 'p' (header:X-Cost) is missing or not a whole number"
                    + " from 1 to 10"), r.bodyText());
        }
        Verdict missing = e.enforce(FakeRequest.get("/"));
        Verdict twoLines = e.enforce(withCost("1").header("X-Cost", "1"));
        assertEquals(400, missing.status());
        assertEquals(400, twoLines.status(), "which line counts would be the client's choice");
        assertEquals(10, e.inspect("192.0.2.1", "p").remaining(), "no bad cost took anything");
    }

    @Test
    void headerCost_aboveTheLimitOrHuge_refusedAsNeverPassing_400_withoutRetryAfter() throws Exception {
        Enforcer e = fixture.enforcer("p = fixed-window 10/1m key=ip cost=header:X-Cost");
        for (String huge : List.of("11", "1000000", "9223372036854775807", "9223372036854775808",
                "99999999999999999999999999999999999999", "00000000000000000000000000011")) {
            Verdict v = e.enforce(withCost(huge));

            assertTrue(v.denied(), huge);
            assertEquals(400, v.status(), huge);
            assertFalse(v.retryable(0), huge);
            RecordingResponse r = denial(v);
            assertNull(r.headers.get("Retry-After"), huge);
            assertTrue(r.bodyText().contains("more than the 10 policy 'p' ever allows: it can never succeed"),
                    r.bodyText());
        }
        assertEquals(10, e.inspect("192.0.2.1", "p").remaining());
        assertTrue(e.enforce(withCost("10")).admitted(), "the whole limit at once is possible");
    }

    @Test
    void costDefault_chargesTheDefaultForABadCost_butNeverForOneAboveTheLimit() {
        Enforcer e = fixture.enforcer("p = fixed-window 10/1m key=ip cost=header:X-Cost cost-default=3");

        assertEquals(3, e.enforce(FakeRequest.get("/")).cost(0), "missing");
        assertEquals(3, e.enforce(withCost("0")).cost(0), "zero is bad, not free");
        assertEquals(3, e.enforce(withCost("-5")).cost(0));
        Verdict huge = e.enforce(withCost("1000"));
        assertTrue(huge.denied(), "asking for more must not cost less than the default");
        assertEquals(400, huge.status());
        assertEquals(1, e.inspect("192.0.2.1", "p").remaining());
    }

    @Test
    void bodyCost_withoutContentLength_411_chunkedToo_andAboveTheLimit_413() throws Exception {
        Enforcer e = fixture.enforcer("p = fixed-window 10/1m key=ip cost=body:1KiB");

        Verdict none = e.enforce(FakeRequest.get("/").method("POST"));
        Verdict chunked = e.enforce(FakeRequest.get("/").method("POST").header("Transfer-Encoding", "chunked"));
        Verdict large = e.enforce(FakeRequest.get("/").method("POST").header("Content-Length", "10241"));
        Verdict smuggled = e.enforce(FakeRequest.get("/").method("POST").header("Content-Length", "1")
                .header("Transfer-Encoding", "chunked"));
        Verdict garbled = e.enforce(FakeRequest.get("/").method("POST").header("Content-Length", "1k"));

        assertEquals(411, none.status());
        assertEquals(411, chunked.status());
        assertTrue(denial(chunked).bodyText().contains("charges by the declared body size, and the request declares"
                + " none (Content-Length)"));
        assertEquals(411, smuggled.status(), "chunks of any size behind a Content-Length of 1 byte");
        assertEquals(413, large.status());
        RecordingResponse r = denial(large);
        assertNull(r.headers.get("Retry-After"));
        assertTrue(r.bodyText().contains("\"status\":413"));
        assertTrue(r.bodyText().contains("The request costs 11 permits, more than the 10 policy 'p' ever allows"),
                r.bodyText());
        assertEquals(400, garbled.status());
        assertEquals(10, e.inspect("192.0.2.1", "p").remaining(), "nothing refused took anything");
        assertTrue(e.enforce(FakeRequest.get("/").method("POST").header("Content-Length", "10240")).admitted());
    }

    @Test
    void bodyCost_withDefault_chargesTheDefaultForAChunkedUpload_butAnOversizedDeclarationStays413() {
        Enforcer e = fixture.enforcer("p = fixed-window 100/1m key=ip cost=body cost-default=50");

        assertEquals(50, e.enforce(FakeRequest.get("/").method("POST").header("Transfer-Encoding", "chunked")).cost(0));
        assertEquals(413, e.enforce(FakeRequest.get("/").method("POST").header("Content-Length", "1000000")).status());
    }

    @Test
    void beanCost_throwingZeroNegativeOrHuge_refusedNeverThrown() {
        AtomicInteger calls = new AtomicInteger();
        long[] answers = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 11};
        Enforcer e = fixture.builder("p = fixed-window 10/1m key=ip cost=bean:f")
                .costFunction("f", r -> {
                    int i = calls.getAndIncrement();
                    if (i == answers.length) {
                        throw new IllegalStateException("boom");
                    }
                    return answers[i];
                }).build();
        int[] statuses = new int[answers.length + 1];
        for (int i = 0; i < statuses.length; i++) {
            Verdict v = e.enforce(FakeRequest.get("/"));
            assertTrue(v.denied());
            assertFalse(v.retryable(0));
            statuses[i] = v.status();
        }
        assertEquals(List.of(400, 400, 400, 400, 400, 400), java.util.Arrays.stream(statuses).boxed().toList());
        assertEquals(10, e.inspect("192.0.2.1", "p").remaining());
    }

    @Test
    void beanCost_unregistered_failsTheBuildNamingPolicyAndName() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> fixture.builder("p = fixed-window 10/1m key=ip cost=bean:nope").build());
        assertEquals("cost bean:nope names no registered cost function; register one under 'nope'"
                + " (Enforcer.Builder.costFunction(name, function), or in Spring Boot a CostFunction bean of that name)"
                + " (policy 'p')", x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Enforcer.builder().costFunction("a b", r -> 1));
        assertThrows(IllegalArgumentException.class,
                () -> Enforcer.builder().costFunction("f", r -> 1).costFunction("f", r -> 2));
    }

    // ---- all or nothing, dry-run, selections -----------------------------------------------------

    @Test
    void badCostOnOnePolicy_refusesTheRequest_andChargesNoOtherPolicy() {
        Enforcer e = fixture.enforcer("global = fixed-window 100/1m key=global",
                "per-ip = fixed-window 10/1m key=ip cost=header:X-Cost");

        Verdict v = e.enforce(withCost("50"));

        assertTrue(v.denied());
        assertEquals(List.of("per-ip"), v.violatedPolicies());
        assertEquals(1, v.binding());
        assertEquals(100, e.inspect("global", "global").remaining(), "all or nothing: the global quota is untouched");
    }

    @Test
    void dryRunPolicy_badCost_reportsADenial_butNeverBlocks_norTakes() {
        Enforcer e = fixture.enforcer("p = fixed-window 10/1m key=ip cost=header:X-Cost dry-run",
                "q = fixed-window 10/1m key=ip");

        Verdict v = e.enforce(withCost("oops"));

        assertTrue(v.admitted());
        assertTrue(v.dryRunDenied());
        assertEquals(Outcome.DENIED, v.decision(1).outcome());
        assertEquals(10, e.inspect("192.0.2.1", "p").remaining());
        assertEquals(9, e.inspect("192.0.2.1", "q").remaining());
    }

    @Test
    void selection_withACostOfItsOwn_overridesTheRequestsCost_andWithZeroKeepsIt() {
        Enforcer e = fixture.enforcer("p = fixed-window 10/1m key=ip cost=header:X-Cost");

        assertEquals(2, e.enforce(withCost("7"), e.select(List.of("p"), 2)).cost(0));
        assertEquals(7, e.enforce(withCost("7"), e.select(List.of("p"), 0)).cost(0));
        assertEquals(400, e.enforce(withCost("x"), e.select("p")).status());
    }

    @Test
    void concurrencyPolicy_headerCost_releasesWhatItTook() {
        Enforcer e = fixture.enforcer("c = concurrency 10 key=ip cost=header:X-Cost");

        Verdict a = e.enforce(withCost("6"));
        Verdict b = e.enforce(withCost("5"));
        a.release(200);
        Verdict c = e.enforce(withCost("5"));

        assertTrue(a.admitted());
        assertTrue(b.denied());
        assertTrue(c.admitted(), "the 6 came back");
        c.release(200);
        assertEquals(10, e.inspect("192.0.2.1", "c").remaining());
    }

    @Test
    void reconfigure_bindsBeanCostsWithTheBuildersFunctions() {
        Enforcer e = fixture.builder("p = fixed-window 10/1m key=ip").costFunction("f", r -> 3).build();

        e.reconfigure("p = fixed-window 10/1m key=ip cost=bean:f", io.github.sluice.store.Inheritance.KEEP_CONSUMED);

        assertEquals(3, e.enforce(FakeRequest.get("/")).cost(0));
        assertThrows(IllegalArgumentException.class, () -> e.reconfigure("p = fixed-window 10/1m key=ip cost=bean:g",
                io.github.sluice.store.Inheritance.KEEP_CONSUMED));
    }

    @Test
    void policy_parsedAndBuilt_areEqual_andFormatBack() {
        Policy parsed = Policy.parse("p = fixed-window 10/1m key=ip cost=header:X-Cost cost-default=2");
        Policy built = Policy.builder("p").algorithm(parsed.algorithm()).key(parsed.key())
                .cost(RequestCost.header("x-cost").orElse(2)).build();

        assertEquals(parsed, built);
        assertEquals("p = fixed-window 10/1m key=ip cost=header:X-Cost cost-default=2",
                io.github.sluice.policy.PolicyFormat.format(parsed));
        assertEquals(Policy.parse("q = fixed-window 10/1m key=ip cost=body:64KiB"),
                Policy.parse(io.github.sluice.policy.PolicyFormat.format(
                        Policy.parse("q = fixed-window 10/1m key=ip cost=body:65536"))));
    }

    @Test
    void startupLine_warnsOfACostAClientWrites_notOfABodyOrBeanCost() {
        Enforcer header = fixture.enforcer("p = fixed-window 10/1m key=ip cost=header:X-Cost");
        Enforcer body = fixture.enforcer("p = fixed-window 10/1m key=ip cost=body");

        assertEquals(List.of("policy 'p' cost chosen by client-writable header X-Cost: a client can always claim"
                + " the cheapest cost, 1; read it from a header your proxy overwrites, or use cost=body or cost=bean:"
                + " (see docs/security.md)"), StartupLine.warnings(header));
        assertEquals(List.of(), StartupLine.warnings(body));
    }
}
