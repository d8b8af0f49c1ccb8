package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvictionEventsTest {

    @Test
    void registryBuiltFromConfig_reportsEvictionsToTheListener() {
        // Given an in-memory store holding one key per policy, configured through the enforcer's builder
        RecordingListener events = new RecordingListener();
        FakeClock clock = new FakeClock();
        Enforcer e = Enforcer.builder().policies("p = token-bucket 5/1h key=ip").maxKeys(1).listener(events)
                .clock(clock).build();

        // When a second client arrives after the first one's bucket has refilled
        e.enforce(FakeRequest.get("/").peer("192.0.2.1"));
        clock.advance(Duration.ofHours(1));
        e.enforce(FakeRequest.get("/").peer("192.0.2.2"));

        // Then the idle first key is dropped without loss, and the listener hears of it
        assertEquals(List.of("allowed p 192.0.2.1", "evicted p 192.0.2.1 true", "allowed p 192.0.2.2"),
                events.events);
    }
}
