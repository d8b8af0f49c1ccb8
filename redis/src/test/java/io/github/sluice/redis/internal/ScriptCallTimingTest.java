package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.store.StoreLatency;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A call is timed from {@link ScriptCall#timed} until Redis's reply completes it, once, under its
 * operation; a call that ends without a reply is not timed. On a fake clock: exact durations.
 */
class ScriptCallTimingTest {

    private final FakeClock clock = new FakeClock();
    private final StoreLatency latency = new StoreLatency("redis", ScriptCall.OPERATIONS);
    private final ScriptCall.Timing timing = new ScriptCall.Timing(latency, clock);
    private final Part[] parts = {new Part(null, new KeyNames("sluice", null).head("p"), 1)};

    private ScriptCall call(char op) {
        ScriptCall c = ScriptCall.of(null, ScriptCall.Via.EVALSHA, op, ScriptCall.REDIS_TIME, parts, 0, false, null);
        c.timed(timing);
        return c;
    }

    @Test
    void answeredCalls_areTimedOnceUnderTheirOperation() {
        assertEquals(List.of("acquire", "release", "renew", "probe"), latency.operations());
        ScriptCall acquire = call('a');
        ScriptCall release = call('r');
        ScriptCall renew = call('n');

        clock.advance(Duration.ofMillis(3));
        acquire.complete();
        acquire.complete(); // completed twice (a late duplicate): timed once
        clock.advance(Duration.ofMillis(2));
        release.complete();
        renew.complete();

        assertEquals(1, latency.count(0));
        assertEquals(3_000_000, latency.totalNanos(0));
        assertEquals(1, latency.count(1));
        assertEquals(5_000_000, latency.totalNanos(1));
        assertEquals(1, latency.count(2));
        assertEquals(0, latency.count(3));
    }

    @Test
    void callsEndedWithoutAReply_areNotTimed() {
        ScriptCall failed = call('a');
        ScriptCall cancelled = call('a');
        clock.advance(Duration.ofMillis(1));

        failed.completeExceptionally(new java.io.IOException("connection reset"));
        cancelled.cancel();
        failed.complete(); // a completion after the failure changes nothing

        assertEquals(0, latency.count(0));
    }

    @Test
    void callNeverTimed_completesWithoutRecording() {
        ScriptCall c = ScriptCall.of(null, ScriptCall.Via.EVALSHA, 'a', ScriptCall.REDIS_TIME, parts, 0, false, null);
        c.complete();
        assertEquals(0, latency.count(0));
    }
}
