package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import io.github.sluice.policy.PolicyParser;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rule of docs/redis.md ("Policy changes"), row by row, and on the schedules the scripts run. */
class AsIsChangeTest {

    private static Algorithm<?> algorithm(String spec) {
        return PolicyParser.parseLine("p = " + spec + " key=ip").algorithm();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "token-bucket 100/1m           | token-bucket 200/1m",
        "token-bucket 100/1m           | token-bucket 50/1m",
        "token-bucket 100/1m           | token-bucket 100/1m burst=300",
        "token-bucket 100/1m           | token-bucket 200/1m burst=300",
        "token-bucket 100/1m           | token-bucket 50/1m burst=20",
        "gcra 100/1m burst=99          | gcra 200/1m burst=5",
        "gcra 10/1s burst=9            | gcra 5/1s burst=4",
        "leaky-bucket 10/1s capacity=10 | leaky-bucket 5/1s capacity=5",
        "leaky-bucket 10/1s capacity=10 | leaky-bucket 20/1s capacity=40",
        "sliding-log 5/1h              | sliding-log 9/1h",
        "fixed-window 5/1h             | fixed-window 2/1h",
        "fixed-window 5/month zone=Europe/Paris | fixed-window 9/month zone=Europe/Paris",
        "concurrency 5                 | concurrency 2",
    })
    void changeThatReadsNoStateAsMore_isAppliedAsItIs(String from, String to) {
        assertNull(AsIsChange.unsafe(algorithm(from), algorithm(to)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "token-bucket 100/1m | token-bucket 200/1m burst=100 | its rate, from 100/1m to 200/1m, while the time"
                + " its bucket takes to fill shrinks from 1m to 30s: a key's state is the instant its bucket was empty,"
                + " and the faster rate reads the time since as more tokens than the change raises",
        "token-bucket 100/1m           | token-bucket 10/1m burst=100  | its rate, from 100/1m to 10/1m, while the time"
                + " its bucket takes to fill grows from 1m to 10m: a key's state is the instant its bucket was empty,"
                + " and a key expires when the old bucket would be full, so one not written since would come back"
                + " full long before the slower rate refills it",
        "gcra 100/1m burst=99          | gcra 50/1m burst=99           | its rate, from 100/1m to 50/1m, while the time"
                + " a full burst takes to earn back grows from 1m to 2m",
        "leaky-bucket 10/1s capacity=5 | leaky-bucket 5/1s capacity=5  | its rate, from 10/1s to 5/1s, while the time"
                + " its bucket takes to drain grows from 500ms to 1s",
        "sliding-log 5/1h              | sliding-log 5/2h              | its window, from 1h to 2h",
        "sliding-window 5/1h           | sliding-window 5/2h           | its window, from 1h to 2h",
        "fixed-window 5/1h             | gcra 5/1h                     | its algorithm, from fixed-window to gcra",
        "fixed-window 5/month zone=Europe/Paris | fixed-window 5/month zone=America/New_York | its calendar, from month"
                + " zone=Europe/Paris to month zone=America/New_York",
        "fixed-window 5/week           | fixed-window 5/week week-start=sunday | its calendar, from week zone=UTC to"
                + " week week-start=sunday zone=UTC",
        "fixed-window 5/1d             | fixed-window 5/day            | its alignment, from EPOCH to CALENDAR",
    })
    void changeThatCouldReadAStateAsMore_isNamedWithWhy(String from, String to, String what) {
        String unsafe = AsIsChange.unsafe(algorithm(from), algorithm(to));

        assertTrue(unsafe != null && unsafe.startsWith(what), unsafe);
    }

    /**
     * At 3/1ms the script schedules the interval exactly (333.3 µs) up to a window of 2^51 ticks;
     * past it, rounded up to 334 µs. The same nominal rate with a burst that long runs slower in
     * Redis and fills later than a key written under the old one expires: refused, as the rule
     * reads the schedules the scripts run, not the rates as written.
     */
    @Test
    void tokenBucket_burstRaisedPastTheExactSchedule_isRefused_becauseItsScriptRunsASlowerRate() {
        Rate rate = Rate.of(3, Duration.ofMillis(1));
        TokenBucket exact = TokenBucket.builder().rate(rate).burst(1000).build();
        TokenBucket rounded = TokenBucket.builder().rate(rate).burst(3_000_000_000_000L).build();
        assertEquals(3, Schedule.of("t", rate, exact.intervalNanos(), 1000).ticks);
        assertEquals(1, Schedule.of("t", rate, rounded.intervalNanos(), 3_000_000_000_000L).ticks);

        String unsafe = AsIsChange.unsafe(exact, rounded);

        assertTrue(unsafe != null && unsafe.startsWith("its rate as the script runs it, from an interval of"
                + " 333.333 microseconds to 334 microseconds (3/1ms, scheduled exactly only while the window stays"
                + " within 2^51 ticks;"), unsafe);
        assertTrue(unsafe.contains("while the time its bucket takes to fill grows"), unsafe);
        assertNull(AsIsChange.unsafe(exact, TokenBucket.builder().rate(rate).burst(2000).build()));
    }
}
