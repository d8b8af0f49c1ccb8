package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Several policies per request, 8 threads released together on a frozen clock: the permits each
 * policy lost, read back from the registry, equal exactly the requests admitted; none is lost to
 * a refused request and none is taken twice.
 */
class AllOrNothingConcurrencyTest {

    private static final int THREADS = 8;

    @RepeatedTest(5)
    void enforce_globalAndPerClientPolicies_neverAdmitMoreThanTheTightestQuotaAndLoseNothing() throws Exception {
        // Given a global quota of 50 and a per-client quota of 10, for 8 clients of 20 requests each
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.enforcer("global = token-bucket 50/1d key=global",
                "per-ip = token-bucket 10/1d key=ip",
                "roomy = fixed-window 1000/1d key=global");
        AtomicInteger[] admitted = new AtomicInteger[THREADS];

        // When all requests race
        run(THREADS, t -> {
            admitted[t] = new AtomicInteger();
            FakeRequest r = FakeRequest.get("/").peer("192.0.2." + (t + 1));
            return () -> {
                for (int i = 0; i < 20; i++) {
                    if (e.enforce(r).admitted()) {
                        admitted[t].incrementAndGet();
                    }
                }
            };
        });

        // Then every policy lost exactly the permits of the admitted requests, and no more than the
        // global quota was admitted. (Fewer may be: a request holding a global permit until per-ip
        // refuses it makes a concurrent request see the global quota empty for that instant.)
        int total = 0;
        for (int t = 0; t < THREADS; t++) {
            int a = admitted[t].get();
            assertTrue(a <= 10, "client " + t + " admitted " + a);
            assertEquals(10 - a, peek(e, "per-ip", "192.0.2." + (t + 1)).remaining(), "client " + t);
            total += a;
        }
        assertTrue(total <= 50, "admitted " + total);
        assertEquals(50 - total, peek(e, "global", "global").remaining());
        assertEquals(1000 - total, peek(e, "roomy", "global").remaining());

        // And nothing was lost: the clients with per-ip room left can take exactly the global rest
        for (int t = 0; t < THREADS; t++) {
            FakeRequest r = FakeRequest.get("/").peer("192.0.2." + (t + 1));
            while (admitted[t].get() < 10 && peek(e, "global", "global").remaining() > 0) {
                assertTrue(e.enforce(r).admitted(), "client " + t + " with room on both quotas");
                admitted[t].incrementAndGet();
                total++;
            }
        }
        assertEquals(50, total);
        assertEquals(0, peek(e, "global", "global").remaining());
        assertEquals(1000 - 50, peek(e, "roomy", "global").remaining());
    }

    @RepeatedTest(5)
    void enforce_tightPolicyLast_refundsEveryEarlierPolicy() throws Exception {
        // Given roomy policies checked before a tight one, all on one key
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.enforcer("a = token-bucket 500/1d key=global", "b = sliding-window 400/1d key=global",
                "tight = fixed-window 37/1d key=global");
        AtomicInteger admitted = new AtomicInteger();

        run(THREADS, t -> () -> {
            for (int i = 0; i < 25; i++) {
                if (e.enforce(FakeRequest.get("/")).admitted()) {
                    admitted.incrementAndGet();
                }
            }
        });

        assertEquals(37, admitted.get());
        assertEquals(500 - 37, peek(e, "a", "global").remaining());
        assertEquals(400 - 37, peek(e, "b", "global").remaining());
        assertEquals(0, peek(e, "tight", "global").remaining());
    }

    interface Body {
        Runnable forThread(int t);
    }

    static void run(int threads, Body body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Runnable r = body.forThread(t);
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    r.run();
                    return null;
                }));
            }
            assertTrue(ready.await(10, TimeUnit.SECONDS));
            go.countDown();
            for (Future<?> fu : futures) {
                fu.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static MutableDecision peek(Enforcer e, String policy, String key) {
        Policy p = e.policies().stream().filter(x -> x.name().equals(policy)).findFirst().orElseThrow();
        MutableDecision out = new MutableDecision();
        e.store().keySpace(p.name(), p.algorithm()).acquire(key, 0, out);
        return out;
    }
}
