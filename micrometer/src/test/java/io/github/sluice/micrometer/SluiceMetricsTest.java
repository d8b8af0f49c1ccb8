package io.github.sluice.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.EnforcerMetrics;
import io.github.sluice.http.Verdict;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import io.github.sluice.store.StoreLatency;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The binder against real registries after scripted traffic on a frozen clock: exact counts. */
class SluiceMetricsTest {

    private final FakeClock clock = new FakeClock();
    private final ShardedRegistry registry = ShardedRegistry.builder().clock(clock).shards(4).build();

    private Enforcer enforcer(String... lines) {
        Enforcer.Builder b = Enforcer.builder().store(registry).listener(EnforcementListener.NONE);
        for (String line : lines) {
            b.policy(Policy.parse(line));
        }
        return b.build();
    }

    private static double count(SimpleMeterRegistry r, String name, String... tags) {
        return r.get(name).tags(tags).functionCounter().count();
    }

    @Test
    void adaptiveGlobalPolicy_limitAndPartitionGauges_followTheLimit_inPrometheusToo() {
        Enforcer e = enforcer("api = adaptive aimd min=5 max=100 initial=20 samples=1 key=global"
                + " partition=attribute:tier partitions=paid:70,free:30", "per-ip = adaptive aimd key=ip");
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new SluiceMetrics(e).bindTo(r);
        new SluiceMetrics(e).bindTo(prometheus);
        assertEquals(20, r.get("sluice.adaptive.limit").tags("policy", "api").gauge().value());
        assertEquals(14, r.get("sluice.adaptive.partition.limit").tags("policy", "api", "partition", "paid")
                .gauge().value());

        e.enforce(FakeRequest.get("/")).release(503); // a drop: AIMD cuts 20 to 18

        assertEquals(18, r.get("sluice.adaptive.limit").tags("policy", "api").gauge().value());
        assertEquals(13, r.get("sluice.adaptive.partition.limit").tags("policy", "api", "partition", "paid")
                .gauge().value());
        assertEquals(6, r.get("sluice.adaptive.partition.limit").tags("policy", "api", "partition", "free")
                .gauge().value());
        assertTrue(r.find("sluice.adaptive.limit").tags("policy", "per-ip").gauges().isEmpty(),
                "a per-client adaptive policy has one limit per key: no single gauge");
        String text = prometheus.scrape();
        assertTrue(text.contains("sluice_adaptive_limit{policy=\"api\"} 18.0"), text);
        assertTrue(text.contains("sluice_adaptive_partition_limit{partition=\"paid\",policy=\"api\"} 13.0"), text);
    }

    @Test
    void scriptedTraffic_countsExactlyPerPolicyOutcomeAndStatus() {
        // Given a rate limit, a dry-run limit, a concurrency limit and a shaping policy, bound
        Enforcer e = enforcer("rate = token-bucket 3/1m key=ip", "trial = token-bucket 1/1m key=ip dry-run",
                "slots = concurrency 10 key=global status=503", "pace = shaping 10/1s slack=0 key=global match=/paced");
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        new SluiceMetrics(e).bindTo(r);

        // When client A sends 4 requests (the 4th refused), B one it keeps in flight, and 2 paced ones
        for (int i = 0; i < 4; i++) {
            e.enforce(FakeRequest.get("/").peer("192.0.2.1")).release();
        }
        Verdict held = e.enforce(FakeRequest.get("/").peer("192.0.2.2"));
        e.enforce(FakeRequest.get("/paced").peer("192.0.2.3")).release();
        Verdict shaped = e.enforce(FakeRequest.get("/paced").peer("192.0.2.4"));
        shaped.release();

        // Then
        assertTrue(held.admitted() && shaped.shaped());
        assertEquals(6, count(r, "sluice.decisions", "policy", "rate", "outcome", "allowed", "status", "none"));
        assertEquals(1, count(r, "sluice.decisions", "policy", "rate", "outcome", "denied", "status", "429"));
        assertEquals(0, count(r, "sluice.decisions", "policy", "rate", "outcome", "shaped", "status", "none"));
        // the dry-run policy: A's 1st allowed, A's 2nd and 3rd would have been refused, A's 4th was
        // refused by "rate" (only peeked), B, C and D allowed
        assertEquals(4, count(r, "sluice.decisions", "policy", "trial", "outcome", "allowed", "status", "none"));
        assertEquals(2, count(r, "sluice.decisions", "policy", "trial", "outcome", "dry_run_denied", "status", "429"));
        assertEquals(6, count(r, "sluice.decisions", "policy", "slots", "outcome", "allowed", "status", "none"));
        assertEquals(0, count(r, "sluice.decisions", "policy", "slots", "outcome", "denied", "status", "503"));
        assertEquals(5, count(r, "sluice.releases", "policy", "slots"));
        assertEquals(0, count(r, "sluice.releases.unmatched", "policy", "slots"), "every release matched an admission");
        assertEquals(1, r.get("sluice.concurrency.in.flight").tags("policy", "slots").gauge().value());
        assertEquals(1, count(r, "sluice.decisions", "policy", "pace", "outcome", "allowed", "status", "none"));
        assertEquals(1, count(r, "sluice.decisions", "policy", "pace", "outcome", "shaped", "status", "none"));
        FunctionTimer delay = r.get("sluice.shaping.delay").tags("policy", "pace").functionTimer();
        assertEquals(1, delay.count());
        assertEquals(100, delay.totalTime(TimeUnit.MILLISECONDS));
        assertEquals(4, r.get("sluice.registry.keys").tags("policy", "rate").gauge().value());
        assertEquals(1, r.get("sluice.registry.keys").tags("policy", "slots").gauge().value());
        assertEquals(0, count(r, "sluice.registry.evictions", "policy", "rate", "cause", "bound"));
        // no releases counter or in-flight gauge for a policy that holds no permits
        assertTrue(r.find("sluice.releases").tags("policy", "rate").meters().isEmpty());
        assertTrue(r.find("sluice.releases.unmatched").tags("policy", "rate").meters().isEmpty());
        assertTrue(r.find("sluice.concurrency.in.flight").tags("policy", "rate").meters().isEmpty());
        // no shaping timer for a dry-run policy: it delays nothing
        assertTrue(r.find("sluice.shaping.delay").tags("policy", "trial").meters().isEmpty());
    }

    @Test
    void outcomeCounting_refundsCounted_concurrencyHasNoRefundMeter() {
        // Given a login limit that counts only failures, and a concurrency limit
        Enforcer e = enforcer("login = fixed-window 3/1m key=ip count=401", "slots = concurrency 5 key=ip");
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new SluiceMetrics(e).bindTo(r);
        new SluiceMetrics(e).bindTo(prometheus);

        // When four requests succeed and two fail
        for (int status : new int[] {200, 401, 200, 200, 401, 200}) {
            Verdict v = e.enforce(FakeRequest.get("/login").peer("192.0.2.1"));
            assertTrue(v.admitted());
            v.release(status);
        }

        // Then the four successes were refunded: six admitted, two consumed the quota
        assertEquals(6, count(r, "sluice.decisions", "policy", "login", "outcome", "allowed", "status", "none"));
        assertEquals(4, count(r, "sluice.refunds", "policy", "login"));
        assertEquals(4, e.metrics().policy("login").refunds());
        assertTrue(r.find("sluice.refunds").tags("policy", "slots").meters().isEmpty(),
                "concurrency permits are released, not refunded");
        assertTrue(prometheus.scrape().contains("sluice_refunds_total{policy=\"login\"} 4.0"), prometheus.scrape());
    }

    @Test
    void aFloodOfDistinctKeys_addsNoMeter() {
        // The attack: every request from a new (spoofed) address. A meter per key would be a time
        // series per address, without bound.
        Enforcer e = enforcer("rate = token-bucket 3/1m key=ip");
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        new SluiceMetrics(e).bindTo(r);
        int before = r.getMeters().size();

        for (int i = 0; i < 2_000; i++) {
            e.enforce(FakeRequest.get("/").peer("10.0." + (i >> 8) + "." + (i & 255)));
        }

        assertEquals(before, r.getMeters().size());
        for (Meter m : r.getMeters()) {
            for (Tag t : m.getId().getTags()) {
                assertFalse(t.getValue().startsWith("10.0."), m.getId().toString());
            }
        }
        assertEquals(2_000, count(r, "sluice.decisions", "policy", "rate", "outcome", "allowed", "status", "none"));
    }

    @Test
    void aDegradedStoresStatus_andTheStoreItself_appearWhenFirstReported() {
        // Given metrics that a store reports to, and a store that is down and refuses with 503
        EnforcerMetrics metrics = EnforcerMetrics.builder().clock(clock).build();
        Enforcer e = Enforcer.builder().store(degraded(registry, 503)).listener(metrics)
                .policy(Policy.parse("p = token-bucket 1/1m key=global")).build();
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        new SluiceMetrics(e, Tags.of("app", "shop")).bindTo(r);
        assertTrue(r.find("sluice.decisions").tags("status", "503").meters().isEmpty());
        assertTrue(r.find("sluice.store.degraded").meters().isEmpty());

        // When the store degrades for 5 s, during which the policy admits one request and refuses two
        metrics.storeDegraded("redis", null);
        for (int i = 0; i < 3; i++) {
            e.enforce(FakeRequest.get("/"));
        }
        clock.advance(Duration.ofSeconds(5));

        // Then
        assertEquals(2, count(r, "sluice.decisions", "app", "shop", "policy", "p", "outcome", "denied", "status", "503"));
        assertEquals(0, count(r, "sluice.decisions", "policy", "p", "outcome", "denied", "status", "429"));
        assertEquals(1, r.get("sluice.store.degraded").tags("app", "shop", "store", "redis").gauge().value());
        assertEquals(5, r.get("sluice.store.degraded.duration").tags("store", "redis").timeGauge().value(TimeUnit.SECONDS));
        metrics.storeRecovered("redis");
        clock.advance(Duration.ofSeconds(60));
        assertEquals(0, r.get("sluice.store.degraded").tags("store", "redis").gauge().value());
        assertEquals(0, r.get("sluice.store.degraded.duration").tags("store", "redis").timeGauge().value(TimeUnit.SECONDS));
        assertEquals(5, count(r, "sluice.store.degraded.time", "store", "redis"));
        assertEquals(1, count(r, "sluice.store.degradations", "store", "redis"));
    }

    @Test
    void prometheusText_namesStartWithSluice_andCarryThePolicy() {
        Enforcer e = enforcer("per-ip = fixed-window 2/10s key=ip", "inflight = concurrency 2 key=global status=503");
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new SluiceMetrics(e).bindTo(r);
        for (int i = 0; i < 3; i++) {
            e.enforce(FakeRequest.get("/").peer("192.0.2.1")).release();
        }

        String text = r.scrape();

        assertTrue(text.contains("sluice_decisions_total{outcome=\"allowed\",policy=\"per-ip\",status=\"none\"} 2.0"), text);
        assertTrue(text.contains("sluice_decisions_total{outcome=\"denied\",policy=\"per-ip\",status=\"429\"} 1.0"), text);
        assertTrue(text.contains("sluice_releases_total{policy=\"inflight\"} 2.0"), text);
        assertTrue(text.contains("sluice_concurrency_in_flight{policy=\"inflight\"} 0.0"), text);
        assertTrue(text.contains("sluice_registry_keys{policy=\"per-ip\"} 1.0"), text);
        for (String line : text.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                // Every meter is a policy's, except the enforcer's count of configuration reloads
                assertTrue(line.startsWith("sluice_") && (line.contains("policy=\"")
                        || line.startsWith("sluice_config_reloads_total{result=")), line);
            }
        }
    }

    @Test
    void shapingDelays_areCumulativeBucketsForHistogramQuantile() {
        // Given a pace of 10 per second without slack: the first passes at once (allowed), the
        // next three wait 100, 200 and 300 ms (shaped)
        Enforcer e = enforcer("pace = shaping 10/1s slack=0 key=global");
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new SluiceMetrics(e).bindTo(r);
        for (int i = 0; i < 4; i++) {
            e.enforce(FakeRequest.get("/")).release();
        }

        String text = r.scrape();

        // Then each le counts the delays up to it, and +Inf all of them (le in seconds)
        assertTrue(text.contains("sluice_shaping_delay_le_total{le=\"0.001\",policy=\"pace\"} 0.0"), text);
        assertTrue(text.contains("sluice_shaping_delay_le_total{le=\"0.1\",policy=\"pace\"} 1.0"), text);
        assertTrue(text.contains("sluice_shaping_delay_le_total{le=\"0.25\",policy=\"pace\"} 2.0"), text);
        assertTrue(text.contains("sluice_shaping_delay_le_total{le=\"0.5\",policy=\"pace\"} 3.0"), text);
        assertTrue(text.contains("sluice_shaping_delay_le_total{le=\"+Inf\",policy=\"pace\"} 3.0"), text);
        assertTrue(text.contains("sluice_shaping_delay_seconds_count{policy=\"pace\"} 3"), text);
    }

    @Test
    void storeLatency_isATimerAndCumulativeBucketsPerOperation_fromTheEnforcersBuild() {
        // Given an enforcer on a store that times its round trips, bound before any round trip
        StoreLatency latency = new StoreLatency("redis", "acquire", "release");
        Enforcer e = Enforcer.builder().store(timed(registry, latency)).listener(EnforcementListener.NONE)
                .policy(Policy.parse("p = token-bucket 1/1m key=ip")).build();
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new SluiceMetrics(e, Tags.of("app", "shop")).bindTo(r);
        assertTrue(r.scrape().contains(
                "sluice_store_latency_seconds_count{app=\"shop\",operation=\"acquire\",store=\"redis\"} 0"));

        // When three decisions take 80 us, 400 us and 3 ms, and a release 2 s
        latency.record(0, 80_000);
        latency.record(0, 400_000);
        latency.record(0, 3_000_000);
        latency.record(1, 2_000_000_000L);
        String text = r.scrape();

        // Then each le counts the round trips up to it (seconds), +Inf all of them
        String acquire = "app=\"shop\",operation=\"acquire\",store=\"redis\"";
        assertTrue(text.contains("sluice_store_latency_le_total{app=\"shop\",le=\"0.0001\",operation=\"acquire\","
                + "store=\"redis\"} 1.0"), text);
        assertTrue(text.contains("sluice_store_latency_le_total{app=\"shop\",le=\"0.00025\",operation=\"acquire\","
                + "store=\"redis\"} 1.0"), text);
        assertTrue(text.contains("sluice_store_latency_le_total{app=\"shop\",le=\"0.0005\",operation=\"acquire\","
                + "store=\"redis\"} 2.0"), text);
        assertTrue(text.contains("sluice_store_latency_le_total{app=\"shop\",le=\"0.005\",operation=\"acquire\","
                + "store=\"redis\"} 3.0"), text);
        assertTrue(text.contains("sluice_store_latency_le_total{app=\"shop\",le=\"+Inf\",operation=\"release\","
                + "store=\"redis\"} 1.0"), text);
        assertTrue(text.contains("sluice_store_latency_le_total{app=\"shop\",le=\"1.0\",operation=\"release\","
                + "store=\"redis\"} 0.0"), text);
        assertTrue(text.contains("sluice_store_latency_seconds_count{" + acquire + "} 3"), text);
        assertTrue(text.contains("sluice_store_latency_seconds_sum{" + acquire + "} 0.00348"), text);
        // 13 buckets and a timer per operation: bounded, whatever the traffic
        assertEquals(2 * 13, text.lines().filter(l -> l.startsWith("sluice_store_latency_le_total{")).count());
    }

    @Test
    void storeLatencyOfAStoreAddedAfterBinding_isRegisteredThen_andOperationIsAReservedTag() {
        EnforcerMetrics metrics = EnforcerMetrics.builder().clock(clock).build();
        Enforcer first = Enforcer.builder().store(registry).listener(metrics)
                .policy(Policy.parse("p = token-bucket 1/1m key=ip")).build();
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        new SluiceMetrics(first).bindTo(r);
        assertTrue(r.find("sluice.store.latency").meters().isEmpty());

        StoreLatency latency = new StoreLatency("redis", "acquire");
        Enforcer.builder().store(timed(registry, latency)).listener(metrics)
                .policy(Policy.parse("q = token-bucket 1/1m key=ip")).build();
        latency.record(0, 1_000_000);

        FunctionTimer t = r.get("sluice.store.latency").tags("store", "redis", "operation", "acquire").functionTimer();
        assertEquals(1, t.count());
        assertEquals(1, t.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> new SluiceMetrics(first, Tags.of("operation", "x")));
    }

    @Test
    void gaugesForTheAlerts_keyBound_adaptiveLimit_andConfigReloads() {
        // Given a registry bounded at 50 keys per policy, an adaptive policy and a rate policy
        ShardedRegistry bounded = ShardedRegistry.builder().clock(clock).shards(4).maxKeys(50).build();
        Enforcer e = Enforcer.builder().store(bounded).listener(EnforcementListener.NONE)
                .policy(Policy.parse("per-ip = fixed-window 2/10s key=ip"))
                .policy(Policy.parse("adaptive = adaptive gradient min=2 max=200 initial=8 key=global")).build();
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new SluiceMetrics(e).bindTo(r);
        e.metrics().recordConfigReload(true);
        e.metrics().recordConfigReload(false);
        e.metrics().recordConfigReload(false);

        String text = r.scrape();

        // Then the alerts' inputs are there: the bound next to the keys, the adaptive limit between
        // its floor and ceiling, and the reloads by result
        assertTrue(text.contains("sluice_registry_keys_max{policy=\"per-ip\"} 50.0"), text);
        assertTrue(text.contains("sluice_adaptive_limit{policy=\"adaptive\"} 8.0"), text);
        assertTrue(text.contains("sluice_adaptive_limit_min{policy=\"adaptive\"} 2.0"), text);
        assertTrue(text.contains("sluice_adaptive_limit_max{policy=\"adaptive\"} 200.0"), text);
        assertTrue(text.contains("sluice_config_reloads_total{result=\"applied\"} 1.0"), text);
        assertTrue(text.contains("sluice_config_reloads_total{result=\"refused\"} 2.0"), text);
        assertFalse(text.contains("sluice_registry_keys_max{policy=\"adaptive\"}"), text);
    }

    @Test
    void close_removesEveryMeter_andLaterStatusesAreNotRegistered() {
        EnforcerMetrics metrics = EnforcerMetrics.builder().clock(clock).build();
        Enforcer e = Enforcer.builder().store(degraded(registry, 503)).listener(metrics)
                .policy(Policy.parse("p = token-bucket 1/1m key=global")).build();
        SimpleMeterRegistry r = new SimpleMeterRegistry();
        SluiceMetrics binder = new SluiceMetrics(e);
        binder.bindTo(r);
        assertFalse(r.getMeters().isEmpty());

        binder.close();
        e.enforce(FakeRequest.get("/"));
        e.enforce(FakeRequest.get("/"));

        assertTrue(r.getMeters().isEmpty(), r.getMeters().toString());
    }

    @Test
    void tagsSluiceSetsItself_areRefused() {
        Enforcer e = enforcer("p = token-bucket 1/1m key=ip");
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> new SluiceMetrics(e, Tags.of("policy", "mine")));
        assertEquals("tags must not use the name 'policy', which Sluice's meters set themselves, but had "
                + "tag(policy=mine)", x.getMessage());
        assertNotNull(new SluiceMetrics(e, List.of(Tag.of("app", "shop"))).toString());
    }

    /** A store that decides in memory and has a latency histogram, as the Redis store has. */
    private static Store timed(Store real, StoreLatency latency) {
        return new Store() {
            @Override
            public KeySpace keySpace(String name, Algorithm<?> algorithm) {
                return real.keySpace(name, algorithm);
            }

            @Override
            public StoreLatency latency() {
                return latency;
            }
        };
    }

    /** A store whose decisions are all marked degraded, as a Redis store that is down marks them. */
    private static Store degraded(Store real, int status) {
        return new Store() {
            @Override
            public KeySpace keySpace(String name, Algorithm<?> algorithm) {
                KeySpace space = real.keySpace(name, algorithm);
                return new KeySpace() {
                    @Override
                    public String name() {
                        return space.name();
                    }

                    @Override
                    public Algorithm<?> algorithm() {
                        return space.algorithm();
                    }

                    @Override
                    public boolean acquire(String key, long cost, MutableDecision out) {
                        boolean ok = space.acquire(key, cost, out);
                        out.degrade(status);
                        return ok;
                    }

                    @Override
                    public void release(String key, long cost) {
                        space.release(key, cost);
                    }

                    @Override
                    public void refund(String key, long cost, MutableDecision admission) {
                        space.refund(key, cost, admission);
                    }

                    @Override
                    public long size() {
                        return space.size();
                    }
                };
            }
        };
    }
}
