package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.config.SluiceConfig;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.core.Algorithm;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import io.github.sluice.store.StoreLatency;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The enforcer's own counts: scripted traffic on a frozen clock, then exact numbers per policy
 * and outcome.
 */
class EnforcerMetricsTest {

    private final EnforcerFixture f = new EnforcerFixture();

    @Test
    void scriptedTraffic_countsEachOutcomeExactly() {
        // Given a rate limit of 3 per minute per client
        Enforcer e = f.enforcer("api = token-bucket 3/1m key=ip");

        // When client A sends 5 requests and client B 2
        for (int i = 0; i < 5; i++) {
            e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        }
        e.enforce(FakeRequest.get("/").peer("192.0.2.2"));
        e.enforce(FakeRequest.get("/").peer("192.0.2.2"));

        // Then 5 were allowed, 2 denied with the policy's status, nothing shaped, and 2 keys are held
        PolicyMetrics m = e.metrics().policy("api");
        assertEquals(5, m.allowed());
        assertEquals(0, m.shaped());
        assertEquals(2, m.denied());
        assertEquals(2, m.denied(429));
        assertArrayEquals(new int[] {429}, m.deniedStatuses());
        assertEquals(2, m.keys());
        assertEquals(0, m.inFlight());
    }

    @Test
    void everyConfiguredPolicy_isCountedFromZeroBeforeAnyRequest() {
        Enforcer e = f.enforcer("a = token-bucket 3/1m key=ip", "b = concurrency 2 key=global");

        List<String> names = new ArrayList<>();
        for (PolicyMetrics m : e.metrics().policies()) {
            names.add(m.name());
            assertEquals(0, m.allowed() + m.shaped() + m.denied() + m.released() + m.inFlight());
        }
        assertEquals(List.of("a", "b"), names);
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> e.metrics().policy("c"));
        assertEquals("policy 'c' is not counted; counted policies: [a, b]", unknown.getMessage());
    }

    @Test
    void requestRefusedByAnotherPolicy_isNotCountedAsAllowedByThePolicyThatGaveItsPermitBack() {
        // Given a generous per-client limit and a global limit of 2
        Enforcer e = f.enforcer("per-ip = token-bucket 10/1m key=ip", "global = token-bucket 2/1m key=global");

        // When 3 requests arrive: the third is refused by the global limit, and per-ip refunds it
        for (int i = 0; i < 3; i++) {
            e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        }

        // Then the refused request counts as one denial, by the policy that refused it only
        assertEquals(2, e.metrics().policy("per-ip").allowed());
        assertEquals(0, e.metrics().policy("per-ip").denied());
        assertEquals(2, e.metrics().policy("global").allowed());
        assertEquals(1, e.metrics().policy("global").denied());
    }

    @Test
    void dryRunDenials_areCountedApartFromRealOnes_andNotAfterARealDenial() {
        // Given an enforced limit of 2 and a dry-run limit of 1
        Enforcer e = f.enforcer("real = token-bucket 2/1m key=global", "trial = token-bucket 1/1m key=global dry-run");

        // When 3 requests arrive
        Verdict first = e.enforce(FakeRequest.get("/"));
        Verdict second = e.enforce(FakeRequest.get("/"));
        Verdict third = e.enforce(FakeRequest.get("/"));

        // Then the dry-run policy would have refused the second (which passed); the third was
        // refused for real, and the dry-run policy only peeked at it: it counts nothing for it
        assertTrue(first.admitted() && second.admitted() && third.denied());
        PolicyMetrics trial = e.metrics().policy("trial");
        assertTrue(trial.dryRun());
        assertEquals(1, trial.allowed());
        assertEquals(1, trial.denied());
        PolicyMetrics real = e.metrics().policy("real");
        assertFalse(real.dryRun());
        assertEquals(2, real.allowed());
        assertEquals(1, real.denied());
    }

    @Test
    void shapedRequests_countTheirDelay_butDryRunShapingDelaysNothing() {
        // Given a pace of 10 per second with no slack, enforced, and the same in dry-run
        Enforcer e = f.enforcer("pace = shaping 10/1s slack=0 max-delay=150ms key=global",
                "trial = shaping 10/1s slack=0 key=ip dry-run");

        // When 3 requests arrive at once: now, after 100 ms, refused (200 ms > max-delay)
        e.enforce(FakeRequest.get("/"));
        Verdict shaped = e.enforce(FakeRequest.get("/"));
        Verdict denied = e.enforce(FakeRequest.get("/"));

        // Then
        assertTrue(shaped.shaped());
        assertTrue(denied.denied());
        PolicyMetrics pace = e.metrics().policy("pace");
        assertEquals(1, pace.allowed());
        assertEquals(1, pace.shaped());
        assertEquals(1, pace.denied());
        assertEquals(1, pace.shapingDelays());
        assertEquals(Duration.ofMillis(100).toNanos(), pace.shapingDelayNanos());
        PolicyMetrics trial = e.metrics().policy("trial");
        assertEquals(1, trial.allowed());
        assertEquals(1, trial.shaped());
        assertEquals(0, trial.shapingDelays());
        assertEquals(0, trial.shapingDelayNanos());
    }

    @Test
    void concurrencyPolicy_inFlightIsAdmittedMinusReleased_andAReleaseCountsOnce() {
        Enforcer e = f.enforcer("slots = concurrency 3 key=global");
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));
        Verdict c = e.enforce(FakeRequest.get("/"));
        Verdict refused = e.enforce(FakeRequest.get("/"));
        PolicyMetrics m = e.metrics().policy("slots");
        assertTrue(refused.denied());
        assertEquals(3, m.inFlight());

        a.release();
        a.release(); // idempotent: the permits went back once
        b.release();
        refused.release(); // held nothing

        assertEquals(3, m.allowed());
        assertEquals(1, m.denied());
        assertEquals(2, m.released());
        assertEquals(1, m.inFlight());
        c.release();
        assertEquals(0, m.inFlight());
    }

    @Test
    void concurrencyPermitGivenBackBecauseAnotherPolicyRefused_isNeitherInFlightNorReleased() {
        Enforcer e = f.enforcer("slots = concurrency 5 key=global", "rate = token-bucket 1/1m key=global");
        Verdict ok = e.enforce(FakeRequest.get("/"));
        Verdict refused = e.enforce(FakeRequest.get("/"));
        assertTrue(refused.denied());

        PolicyMetrics slots = e.metrics().policy("slots");
        assertEquals(1, slots.inFlight());
        ok.release();
        assertEquals(0, slots.inFlight());
        assertEquals(1, slots.released());
    }

    @Test
    void denialsADegradedStoreDecides_areCountedUnderTheStatusItAskedFor() {
        // Given a store that is down and refuses with 503 (fail-closed)
        List<String> added = new CopyOnWriteArrayList<>();
        EnforcerMetrics metrics = EnforcerMetrics.builder().build();
        metrics.observe(new EnforcerMetrics.Observer() {
            @Override
            public void statusAdded(PolicyMetrics policy, int status) {
                added.add(policy.name() + " " + status);
            }
        });
        Enforcer e = f.builder("p = token-bucket 1/1m key=global").listener(metrics)
                .store(new DegradedStore(f.registry, 503)).build();

        // When the policy admits one request and refuses two
        for (int i = 0; i < 3; i++) {
            e.enforce(FakeRequest.get("/"));
        }

        // Then the refusals count under 503, not under the policy's 429, and observers heard of 503 once
        PolicyMetrics m = e.metrics().policy("p");
        assertEquals(2, m.denied());
        assertEquals(2, m.denied(503));
        assertEquals(0, m.denied(429));
        assertArrayEquals(new int[] {429, 503}, m.deniedStatuses());
        assertEquals(List.of("p 503"), added);
    }

    @Test
    void storeEvents_timeTheDegradedStateOnTheClock() {
        FakeClock clock = new FakeClock();
        EnforcerMetrics m = EnforcerMetrics.builder().clock(clock).build();

        m.storeDegraded("redis", new RuntimeException("connection refused"));
        clock.advance(Duration.ofSeconds(5));
        m.storeDegraded("redis", null); // repeated: the same episode
        StoreHealth redis = m.stores().get("redis");
        assertTrue(redis.degraded());
        assertEquals(Duration.ofSeconds(5).toNanos(), redis.degradedForNanos());

        clock.advance(Duration.ofSeconds(2));
        m.storeRecovered("redis");
        clock.advance(Duration.ofSeconds(60));
        assertFalse(redis.degraded());
        assertEquals(0, redis.degradedForNanos());
        assertEquals(Duration.ofSeconds(7).toNanos(), redis.degradedTotalNanos());

        m.storeDegraded("redis", null);
        clock.advance(Duration.ofSeconds(3));
        assertEquals(2, redis.degradations());
        assertEquals(Duration.ofSeconds(10).toNanos(), redis.degradedTotalNanos());
    }

    @Test
    void idleAndBoundEvictions_areCountedPerPolicy() {
        // Given a registry holding one key, reporting to the metrics the enforcer counts with
        FakeClock clock = new FakeClock();
        EnforcerMetrics metrics = EnforcerMetrics.builder().clock(clock).build();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).maxKeys(1).listener(metrics).build();
        Enforcer e = Enforcer.builder().store(registry).listener(metrics)
                .policy(Policy.parse("p = token-bucket 5/1h key=ip")).build();

        // When A's bucket refills before B arrives (A is dropped idle), and C comes right after B
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        clock.advance(Duration.ofHours(1));
        e.enforce(FakeRequest.get("/").peer("192.0.2.2"));
        e.enforce(FakeRequest.get("/").peer("192.0.2.3"));

        // Then one idle (lossless) and one bound (lossy) eviction, and one key held
        PolicyMetrics m = metrics.policy("p");
        assertEquals(1, m.idleEvictions());
        assertEquals(1, m.boundEvictions());
        assertEquals(1, m.keys());
    }

    @Test
    void sluiceConfigGivenMetricsAsItsListener_countsTheEvictionsOfTheRegistryItBuilds() {
        // Given metrics passed as the listener of a configuration whose registry holds one key
        FakeClock clock = new FakeClock();
        EnforcerMetrics metrics = EnforcerMetrics.builder().clock(clock).build();
        Enforcer e = SluiceConfig.parseProperties("policy.p = token-bucket 5/1h key=ip\nmax-keys = 1\n", "t")
                .listener(metrics).clock(clock).build();

        // When a second client arrives after the first one's bucket has refilled
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        clock.advance(Duration.ofHours(1));
        e.enforce(FakeRequest.get("/").peer("192.0.2.2"));

        // Then the enforcer counts with those metrics, and they saw the registry drop the idle key
        assertSame(metrics, e.metrics());
        assertEquals(1, metrics.policy("p").idleEvictions());
        assertEquals(2, metrics.policy("p").allowed());
    }

    @Test
    void sluiceConfigWithItsDefaultListener_countsTheEvictionsOfTheRegistryItBuilds() {
        // Given a configuration as web.xml or a properties file gives it: no listener in code
        FakeClock clock = new FakeClock();
        Enforcer e = SluiceConfig.parseProperties("policy.p = token-bucket 5/1h key=ip\nmax-keys = 1\n", "t")
                .clock(clock).build();

        // When a second client arrives after the first one's bucket has refilled
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        clock.advance(Duration.ofHours(1));
        e.enforce(FakeRequest.get("/").peer("192.0.2.2"));

        // Then the enforcer's own metrics saw the registry drop the idle key
        assertEquals(1, e.metrics().policy("p").idleEvictions());
        assertEquals(2, e.metrics().policy("p").allowed());
    }

    @Test
    void evictionsOfAPolicyThisEnforcerDoesNotHave_areNotCounted() {
        EnforcerMetrics metrics = EnforcerMetrics.builder().build();
        metrics.evicted("elsewhere", "192.0.2.1", false);
        assertTrue(metrics.policies().isEmpty());
    }

    @Test
    void configuredListener_stillHearsEverything_andOneThatThrowsChangesNoCount() {
        RecordingListener events = new RecordingListener();
        Enforcer e = f.builder("p = token-bucket 1/1m key=ip").listener(events).build();
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        assertEquals(List.of("allowed p 192.0.2.1", "denied p 192.0.2.1"), events.events);
        assertSame(events, e.metrics().next());

        Enforcer broken = f.builder("q = token-bucket 1/1m key=ip").listener(new EnforcementListener() {
            @Override
            public void allowed(Policy policy, String key, MutableDecision decision) {
                throw new IllegalStateException("broken listener");
            }
        }).build();
        assertTrue(broken.enforce(FakeRequest.get("/").peer("192.0.2.1")).admitted());
        assertEquals(1, broken.metrics().policy("q").allowed());
    }

    @Test
    void metricsTurnedOff_countNothing_andTheListenerIsToldDirectly() {
        RecordingListener events = new RecordingListener();
        Enforcer e = f.builder("p = token-bucket 1/1m key=ip").listener(events).metrics(false).build();
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        assertSame(events, e.listener());
        assertEquals(1, events.events.size());
        assertEquals(0, e.metrics().policy("p").allowed());
    }

    @Test
    void metricsGivenAsTheListener_becomeTheEnforcersOwn() {
        EnforcerMetrics shared = EnforcerMetrics.builder().build();
        Enforcer e = f.builder("p = token-bucket 1/1m key=ip").listener(shared).build();
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        assertSame(shared, e.metrics());
        assertEquals(1, shared.policy("p").allowed());

        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> EnforcerMetrics.builder().next(shared));
        assertTrue(twice.getMessage().startsWith("next must not be an EnforcerMetrics"), twice.getMessage());
    }

    @Test
    void storeThatTimesItsRoundTrips_isTrackedWhenTheEnforcerIsBuilt_andObserversAreTold() {
        // Given a store that times its round trips, and metrics with an observer
        ShardedRegistry memory = ShardedRegistry.builder().build();
        StoreLatency latency = new StoreLatency("redis", "acquire");
        Store timed = new Store() {
            @Override
            public KeySpace keySpace(String name, Algorithm<?> algorithm) {
                return memory.keySpace(name, algorithm);
            }

            @Override
            public StoreLatency latency() {
                return latency;
            }
        };
        EnforcerMetrics metrics = EnforcerMetrics.builder().build();
        List<StoreLatency> told = new ArrayList<>();
        metrics.observe(new EnforcerMetrics.Observer() {
            @Override
            public void storeLatencyAdded(StoreLatency l) {
                told.add(l);
            }
        });

        // When two enforcers are built with it
        f.builder("p = token-bucket 1/1m key=ip").store(timed).listener(metrics).build();
        f.builder("q = token-bucket 1/1m key=ip").store(timed).listener(metrics).build();

        // Then its histogram is there once, before any request, and the observer heard it once
        assertEquals(java.util.Map.of("redis", latency), metrics.storeLatencies());
        assertEquals(List.of(latency), told);
        // and a store that times nothing (the in-memory one) adds none
        assertTrue(f.builder("r = token-bucket 1/1m key=ip").build().metrics().storeLatencies().isEmpty());
    }
}
