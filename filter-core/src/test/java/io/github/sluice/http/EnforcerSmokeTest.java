package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.config.SluiceConfig;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnforcerSmokeTest {

    @Test
    void enforce_fromInitParams_allowsThenDeniesWithHeadersAndProblem() throws Exception {
        // Given a configuration of one token bucket of 2 per minute, from init-params
        Map<String, String> params = Map.of("policies", "per-ip = token-bucket 2/1m key=ip match=/api/*");
        SluiceConfig config = SluiceConfig.fromInitParams(params::get);
        Enforcer enforcer = config.enforcerBuilder()
                .store(io.github.sluice.store.ShardedRegistry.builder().clock(new FakeClock()).build())
                .build();
        FakeRequest request = FakeRequest.get("/api/x");

        // When three requests arrive at once
        Verdict first = enforcer.enforce(request);
        enforcer.enforce(request);
        Verdict third = enforcer.enforce(request);

        // Then the first is allowed with headers, the third denied with a problem body
        RecordingResponse ok = new RecordingResponse();
        first.writeHeaders(ok);
        assertTrue(first.admitted());
        assertEquals("\"per-ip\";q=2;w=60", ok.headers.get("RateLimit-Policy"));
        assertEquals("\"per-ip\";r=1;t=30", ok.headers.get("RateLimit"));
        RecordingResponse no = new RecordingResponse();
        assertTrue(third.denied());
        assertEquals(429, third.status());
        third.writeDenial(no, no);
        assertEquals("30", no.headers.get("Retry-After"));
        assertEquals("\"per-ip\";r=0;t=30", no.headers.get("RateLimit"));
        assertEquals("application/problem+json", no.headers.get("Content-Type"));
        assertTrue(no.bodyText().contains("\"violated-policies\":[\"per-ip\"]"), no.bodyText());
    }
}
