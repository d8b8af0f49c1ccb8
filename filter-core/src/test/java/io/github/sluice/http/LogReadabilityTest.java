package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No log line and no {@code toString} a user may read carries an ISO-8601 duration
 * ({@code PT23.958990827S}) or a bare count of nanoseconds: scripted traffic through every
 * algorithm, logged at {@code TRACE}, is scanned for both.
 */
class LogReadabilityTest {

    /** An ISO-8601 duration, as {@code Duration.toString()} writes it. */
    private static final Pattern ISO = Pattern.compile("\\bPT-?[0-9]");
    /** Ten digits or more: nanoseconds of a second or longer, where a person expects {@code 1s}. */
    private static final Pattern NANOS = Pattern.compile("(?<![0-9.])[0-9]{10,}(?![0-9])");

    private static final List<String> POLICIES = List.of(
            "tb = token-bucket 3/7s burst=2 key=ip",
            "gc = gcra 5/1m key=ip",
            "fw = fixed-window 2/90s key=ip",
            "sw = sliding-window 2/1m slots=6 key=ip",
            "sl = sliding-log 2/45s key=ip",
            "lb = leaky-bucket 2/3s key=ip",
            "sh = shaping 1/1s slack=0 max-delay=1500ms key=ip",
            "wu = warm-up 2/1s warm-up=30s key=ip",
            "sb = smooth-bursty 2/1s max-burst=3s key=ip",
            "cc = concurrency 1 key=ip",
            "ad = adaptive gradient min=1 max=4 initial=1 key=ip",
            "dry = fixed-window 1/1m key=ip dry-run");

    @Test
    void logsOfTrafficThroughEveryAlgorithm_haveNoIsoOrNanosecondDurations() {
        LoggingListenerTest.Recording log = new LoggingListenerTest.Recording(Level.TRACE);
        FakeClock clock = new FakeClock();
        List<String> texts = new ArrayList<>();
        for (String line : POLICIES) {
            Policy policy = Policy.parse(line);
            texts.add(policy.toString());
            texts.add(policy.algorithm().toString());
            try (Enforcer e = Enforcer.builder().clock(clock).listener(new LoggingListener(log)).policy(policy).build()) {
                for (int i = 0; i < 18; i++) {
                    Verdict v = e.enforce(FakeRequest.get("/api/" + i).peer("192.0.2." + (i % 3 / 2)));
                    texts.add(v.toString());
                    for (int k = 0; k < v.size(); k++) {
                        texts.add(v.decision(k).toString());
                    }
                    if (i % 3 == 2) {
                        v.release();
                    }
                    if (i % 3 == 2) {
                        clock.advance(Duration.ofMillis(2_345_678 % (i + 7) * 97));
                    }
                }
            }
        }
        texts.addAll(log.lines);

        assertTrue(log.lines.stream().anyMatch(l -> l.contains(" denied ")), "the traffic must be denied somewhere");
        assertTrue(log.lines.stream().anyMatch(l -> l.contains(" delayed ")), "and shaped somewhere");
        for (String text : texts) {
            Matcher iso = ISO.matcher(text);
            Matcher nanos = NANOS.matcher(text);
            assertFalse(iso.find(), () -> "an ISO-8601 duration in: " + text);
            assertFalse(nanos.find(), () -> "a raw nanosecond count in: " + text);
        }
    }
}
