package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.Inheritance;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Reconfiguration under load: threads released together on a frozen clock decide requests while
 * another thread swaps two sets of policies back and forth. No request sees a half-applied set
 * (its policies, limits and headers all come from one set), no permit is lost or released twice
 * (the permits in flight are back to zero, on every key space any set used), and no key space
 * admits more than the limit of the set that bound it.
 */
class ReconfigureConcurrencyTest {

    private static final int THREADS = 8;
    private static final String SET_A = "rate = fixed-window 300/1d key=global\ngate = concurrency 3 key=global\n"
            + "only-a = token-bucket 1000/1d key=global";
    private static final String SET_B = "rate = fixed-window 500/1d key=global\ngate = concurrency 5 key=global";

    @RepeatedTest(5)
    void enforce_whileSetsAreSwapped_everyRequestSeesOneWholeSetAndNoPermitIsLost() throws Exception {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.enforcer();
        e.reconfigure(SET_A, Inheritance.KEEP_CONSUMED);
        String policyA = "\"rate\";q=300;w=86400, \"gate\";q=3;qu=\"concurrent-requests\", \"only-a\";q=1000;w=86400";
        String policyB = "\"rate\";q=500;w=86400, \"gate\";q=5;qu=\"concurrent-requests\"";
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        Map<KeySpace, AtomicInteger> admittedBy = new ConcurrentHashMap<>();
        AtomicInteger swaps = new AtomicInteger();
        AtomicInteger decided = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();

        AllOrNothingConcurrencyTest.run(THREADS + 1, t -> t == THREADS
                ? () -> {
                    // The swapper: alternate the sets while the others run, about every 16 requests
                    for (int i = 0; i < 100; i++) {
                        while (decided.get() < i * 16 && finished.get() < THREADS) {
                            Thread.yield();
                        }
                        e.reconfigure(i % 2 == 0 ? SET_B : SET_A, Inheritance.KEEP_CONSUMED);
                        swaps.incrementAndGet();
                        Thread.yield();
                    }
                    done.set(true);
                }
                : () -> {
                    for (int i = 0; i < 200; i++) {
                        // Lock-step, loosely: no side gets more than two swaps ahead of the other
                        int n = decided.incrementAndGet();
                        while (swaps.get() < n / 16 - 2 && !done.get()) {
                            Thread.yield();
                        }
                        Verdict v = e.enforce(FakeRequest.get("/"));
                        List<String> names = v.violatedPolicies();
                        String field = EnforcerFixture.headers(v).headers.get("RateLimit-Policy");
                        boolean a = v.size() == 3;
                        if (!(a ? policyA : policyB).equals(field)) {
                            problems.add("headers " + field + " for " + v);
                        }
                        long rateLimit = v.decision(0).limit();
                        long gateLimit = v.decision(1).limit();
                        if (a ? rateLimit != 300 || gateLimit != 3 : rateLimit != 500 || gateLimit != 5) {
                            problems.add("half-applied set: " + v + " " + names);
                        }
                        if (v.admitted()) {
                            for (Verdict.Entry en = v.first(); en != null; en = v.after(en)) {
                                admittedBy.computeIfAbsent(en.space(), s -> new AtomicInteger()).incrementAndGet();
                            }
                            int now = inFlight.incrementAndGet();
                            maxInFlight.accumulateAndGet(now, Math::max);
                            inFlight.decrementAndGet();
                            v.release();
                        }
                    }
                    finished.incrementAndGet();
                });

        assertTrue(problems.isEmpty(), problems.size() + " problems, e.g. " + problems.peek());
        assertEquals(100, swaps.get());
        assertTrue(maxInFlight.get() <= 5, "in flight at once: " + maxInFlight.get());
        // Never more than the limit of the set that bound each key space
        admittedBy.forEach((space, n) -> assertTrue(space.algorithm().concurrency()
                || n.get() <= space.algorithm().limit(), space + " admitted " + n.get()));
        assertTrue(admittedBy.size() > 3, "the swaps bound new key spaces: " + admittedBy.keySet());
        // No permit lost or released twice: every gate key space any set used is back at zero
        for (KeySpace space : admittedBy.keySet()) {
            if (space.algorithm().concurrency()) {
                MutableDecision d = new MutableDecision();
                space.acquire("global", 0, d);
                assertEquals(space.algorithm().limit(), d.remaining(), space.toString());
            }
        }
        assertEquals(0, e.metrics().policy("gate").inFlight());
        List<Policy> last = e.policies();
        assertEquals(3, last.size(), "the swapper ended on set A");
    }
}
