package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Where Redis is: a server's URI, a cluster's {@code redis-cluster://} URI, or a list of seeds. */
class EndpointTest {

    @Test
    @SuppressWarnings("deprecation") // getUsername/getPassword: the plainest way to read them back
    void parse_clusterUri_everySeedGetsTheCredentialsAndOptions() {
        Endpoint e = Endpoint.parse("redis-cluster://app:s3cret@10.0.0.1:7000,10.0.0.2,10.0.0.3:7002?timeout=2s");

        assertTrue(e.cluster());
        List<RedisURI> seeds = e.seeds();
        assertEquals(3, seeds.size());
        assertEquals("10.0.0.2", seeds.get(1).getHost());
        assertEquals(6379, seeds.get(1).getPort(), "a port left out is 6379");
        assertEquals(7002, seeds.get(2).getPort());
        for (RedisURI s : seeds) {
            assertEquals("app", s.getUsername());
            assertEquals("s3cret", new String(s.getPassword()));
            assertFalse(s.isSsl());
            assertEquals(Duration.ofSeconds(2), s.getTimeout());
        }
        assertEquals("cluster 10.0.0.1:7000,10.0.0.2:6379,10.0.0.3:7002", e.describe());
    }

    @Test
    void parse_tlsClusterUri_seedsUseTls() {
        Endpoint e = Endpoint.parse("rediss-cluster://10.0.0.1:7000,10.0.0.2:7001");
        assertTrue(e.seeds().stream().allMatch(RedisURI::isSsl));
    }

    @Test
    void parse_serverUri_isNoCluster() {
        Endpoint e = Endpoint.parse(" redis://127.0.0.1:6380/2 ");
        assertFalse(e.cluster());
        assertEquals(6380, e.single().getPort());
        assertEquals(2, e.single().getDatabase());
        assertEquals("127.0.0.1:6380", e.describe());
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis-cluster://", "redis-cluster://10.0.0.1:7000,,10.0.0.2",
            "redis-cluster://10.0.0.1:7000,", "redis-cluster://:pw@"})
    void parse_clusterUriWithoutAHost_isRefusedNamingTheUriWithoutPassword(String uri) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Endpoint.parse(uri));
        assertTrue(e.getMessage().startsWith("uri must "), e.getMessage());
        assertFalse(e.getMessage().contains("pw@"), e.getMessage());
    }

    @Test
    void parse_clusterUriWithADatabase_isRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Endpoint.parse("redis-cluster://user:hunter2@10.0.0.1:7000/3"));
        assertEquals("uri must not select a database other than 0 (Redis Cluster has only database 0)"
                + " but was 'redis-cluster://***@10.0.0.1:7000/3'", e.getMessage());
        assertTrue(Endpoint.parse("redis-cluster://10.0.0.1:7000/0").cluster());
    }

    @Test
    void parse_malformedUri_messageNamesItWithoutPassword() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Endpoint.parse("redis-cluster://u:hunter2@10.0.0.1:notaport"));
        assertTrue(e.getMessage().startsWith("uri must be a Redis URI such as"), e.getMessage());
        assertTrue(e.getMessage().endsWith("port must be a number between 1 and 65535 but was 'notaport'"),
                e.getMessage());
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        // (Lettuce alone reads "10.0.0.1:notaport" as a host name, on port 6379)
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("redis://10.0.0.1:notaport/0"));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("redis-cluster://10.0.0.1:7000,10.0.0.2:0"));
        assertTrue(Endpoint.parse("redis://[::1]:6379").single().getPort() == 6379);
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("not a url"));
        assertThrows(NullPointerException.class, () -> Endpoint.parse(null));
    }

    @Test
    void cluster_seedList_mustBeSingleNodes() {
        assertTrue(Endpoint.cluster(List.of("redis://10.0.0.1:7000", "rediss://10.0.0.2:7001")).cluster());
        assertEquals("cluster must name at least one seed node but was empty",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.cluster(List.of())).getMessage());
        IllegalArgumentException sentinel = assertThrows(IllegalArgumentException.class,
                () -> Endpoint.cluster(List.of("redis-sentinel://:pw@10.0.0.1:26379#mymaster")));
        assertTrue(sentinel.getMessage().startsWith("cluster seed must be a redis:// or rediss:// URI"),
                sentinel.getMessage());
        assertFalse(sentinel.getMessage().contains("pw"), sentinel.getMessage());
    }

    @Test
    void seeds_areFreshCopies_soTheClientCannotChangeTheEndpoint() {
        Endpoint e = Endpoint.parse("redis-cluster://10.0.0.1:7000");
        RedisURI first = e.seeds().get(0);
        first.setTimeout(Duration.ofMinutes(5));
        assertNotSame(first, e.seeds().get(0));
        assertEquals(RedisURI.DEFAULT_TIMEOUT_DURATION, e.seeds().get(0).getTimeout());
    }
}
