package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-customer overrides ({@code override=}): the contract limit wins over the plan, is cached
 * (bounded, with a TTL on the enforcer's clock), looked up once at a time per key, and a slow or
 * failing lookup never holds a request longer than {@code override-timeout}: the plan decides,
 * and the fallback is counted.
 */
class OverridesTest {

    private final FakeClock clock = new FakeClock();
    private Enforcer enforcer;

    @AfterEach
    void close() {
        if (enforcer != null) {
            enforcer.close();
        }
    }

    private Enforcer build(String options, Function<String, String> lookup) {
        enforcer = Enforcer.builder()
                .policies("api = fixed-window key=header:X-Api-Key plan=header:X-Plan plans=free:2/1m,pro:5/1m"
                        + " default-plan=free override=bean:contractOf " + options)
                .overrideLookup("contractOf", lookup)
                .listener(EnforcementListener.NONE).clock(clock).build();
        return enforcer;
    }

    private static FakeRequest key(String key) {
        return FakeRequest.get("/api").peer("198.51.100.7").header("X-Api-Key", key);
    }

    private int admitted(String key, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            if (enforcer.enforce(key(key)).admitted()) {
                n++;
            }
        }
        return n;
    }

    private long fallbacks() {
        return enforcer.metrics().policy("api").overrideFallbacks();
    }

    @Test
    void override_contractLimitWinsOverThePlan_andIsNamedApart() {
        build("", k -> k.equals("partner-1") ? "7/1m" : null);
        assertEquals(7, admitted("partner-1", 20));
        assertEquals(2, admitted("someone", 20), "no contract: the plan");
        RecordingResponse r = EnforcerFixture.headers(enforcer.enforce(key("partner-1")));
        assertEquals("\"api.override\";q=7;w=60", r.headers.get("RateLimit-Policy"));
        assertEquals(0, fallbacks());
    }

    @Test
    void override_unlimitedAndBlockedContracts() {
        build("", k -> k.equals("vip") ? "unlimited" : k.equals("fraud") ? "blocked" : null);
        assertEquals(50, admitted("vip", 50));
        Verdict v = enforcer.enforce(key("fraud"));
        assertEquals(403, v.status());
    }

    @Test
    void override_cachedForTheTtl_thenLookedUpAgain() {
        AtomicInteger calls = new AtomicInteger();
        String[] contract = {"3/1m"};
        build("override-ttl=10s", k -> {
            calls.incrementAndGet();
            return contract[0];
        });
        admitted("p", 5);
        assertEquals(1, calls.get(), "one lookup serves the key's requests");
        contract[0] = "6/1m";
        clock.advance(Duration.ofSeconds(11));
        assertEquals(3, admitted("p", 10), "the new contract, less the 3 already used in this minute");
        assertEquals(2, calls.get());
    }

    @Test
    void override_concurrentRequestsForOneKey_lookUpOnce() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        build("override-timeout=5s", k -> {
            calls.incrementAndGet();
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "9/1m";
        });
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            Future<?>[] requests = new Future<?>[8];
            for (int i = 0; i < requests.length; i++) {
                requests[i] = pool.submit(() -> enforcer.enforce(key("p")));
            }
            assertTrue(entered.await(5, TimeUnit.SECONDS));
            release.countDown();
            for (Future<?> f : requests) {
                f.get(5, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, calls.get(), "single flight: eight requests, one lookup");
        assertEquals(1, admitted("p", 10), "all eight were decided by the contract of 9");
        assertEquals(0, fallbacks());
    }

    @Test
    void override_slowLookup_planDecidesAfterTheTimeout_countedOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        build("override-timeout=20ms", k -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "9/1m";
        });
        long start = System.nanoTime();
        assertTrue(enforcer.enforce(key("p")).admitted());
        long waited = System.nanoTime() - start;
        assertTrue(waited < TimeUnit.SECONDS.toNanos(2), "bounded by the timeout, not the lookup: " + waited);
        assertEquals(1, fallbacks());
        RecordingResponse r = EnforcerFixture.headers(enforcer.enforce(key("p")));
        assertEquals("\"api.free\";q=2;w=60", r.headers.get("RateLimit-Policy"), "the plan decides meanwhile");
        assertEquals(2, fallbacks());
        release.countDown();
        for (int i = 0; i < 200 && !"\"api.override\";q=9;w=60".equals(
                EnforcerFixture.headers(enforcer.enforce(key("p"))).headers.get("RateLimit-Policy")); i++) {
            Thread.sleep(5); // the lookup thread completes on its own time
        }
        assertEquals("\"api.override\";q=9;w=60",
                EnforcerFixture.headers(enforcer.enforce(key("p"))).headers.get("RateLimit-Policy"));
    }

    @Test
    void overrideFallbacks_countedInJmx() throws Exception {
        build("override-timeout=1s", k -> {
            throw new IllegalStateException("database down");
        });
        admitted("p", 3);
        javax.management.ObjectName name = EnforcerJmx.register(enforcer, "jmx-test-overrides");
        javax.management.openmbean.TabularData table = (javax.management.openmbean.TabularData)
                java.lang.management.ManagementFactory.getPlatformMBeanServer().getAttribute(name, "OverrideFallbacks");
        assertEquals(1, table.size());
        assertEquals(3L, table.get(new Object[] {"api"}).get("value"));
    }

    @Test
    void override_failingLookup_planDecides_askedAgainAfterASecond() {
        AtomicInteger calls = new AtomicInteger();
        build("override-timeout=1s", k -> {
            calls.incrementAndGet();
            throw new IllegalStateException("database down");
        });
        assertEquals(2, admitted("p", 5), "the plan decides, never an exception, never a free pass");
        assertEquals(1, calls.get(), "a failure is remembered: not one lookup per request");
        assertEquals(5, fallbacks());
        clock.advance(Duration.ofMillis(1001));
        enforcer.enforce(key("p"));
        assertEquals(2, calls.get());
    }

    @Test
    void override_badLimitFromTheLookup_isAFailure() {
        build("override-timeout=1s", k -> "lots");
        assertEquals(2, admitted("p", 5));
        assertEquals(5, fallbacks());
    }

    @Test
    void override_cacheIsBounded() {
        build("override-cache=3", k -> null);
        for (int i = 0; i < 50; i++) {
            enforcer.enforce(key("k" + i));
        }
        PlanChoice plans = enforcer.table().all.members[0].plans;
        assertTrue(plans.overrides.size() <= 3, "cached keys: " + plans.overrides.size());
    }

    @Test
    void override_unregisteredLookup_failsAtStart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Enforcer.builder()
                .policies("api = fixed-window 5/1m key=ip override=bean:nobody").clock(clock).build());
        assertTrue(e.getMessage().contains("override=bean:nobody"), e.getMessage());
    }

    @Test
    void overrideFile_limitsByKey_reloadedWhenChanged(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("contracts.properties");
        Files.writeString(file, "# contracts\npartner-1 = 4/1m\n", StandardCharsets.UTF_8);
        enforcer = Enforcer.builder()
                .policies("api = fixed-window 2/1m key=header:X-Api-Key override=file:" + file + " override-ttl=1s")
                .listener(EnforcementListener.NONE).clock(clock).build();
        assertEquals(4, admitted("partner-1", 10));
        assertEquals(2, admitted("other", 10));
        Files.writeString(file, "partner-1 = 6/1m\nother = 3/1m\n", StandardCharsets.UTF_8);
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(file).toMillis() + 2000));
        clock.advance(Duration.ofSeconds(2));
        enforcer.enforce(key("nobody")); // a lookup reads the new version: held until read unchanged
        clock.advance(Duration.ofSeconds(2));
        assertEquals(2, admitted("partner-1", 10), "6 less the 4 used");
        assertEquals(1, admitted("other", 10), "3 less the 2 used");
    }

    @Test
    void overrideFile_badLine_failsAtStart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("contracts.properties");
        Files.writeString(file, "partner-1 = lots\n", StandardCharsets.UTF_8);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Enforcer.builder()
                .policies("api = fixed-window 2/1m key=ip override=file:" + file).clock(clock).build());
        assertTrue(e.getMessage().contains("partner-1") && e.getMessage().contains("lots"), e.getMessage());
        assertFalse(e.getMessage().isEmpty());
    }
}
