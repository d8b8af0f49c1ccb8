package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.GcraModel;
import io.github.sluice.testing.Invariants;
import io.github.sluice.testing.ModelCheck;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GcraTest {

    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final long START = 1_767_225_600_000_000_000L;

    /** redis-cell's own test, it_rate_limits: limit 5 (max_burst 4), 1 per second. */
    static Stream<Arguments> redisCellVectors() {
        // (case, ms after start, quantity, remaining, reset_after ms, retry_after ms or -1, limited)
        return Stream.of(
                Arguments.of(0, 0L, 6L, 5L, 0L, -1L, true),
                Arguments.of(1, 0L, 1L, 4L, 1000L, -1L, false),
                Arguments.of(2, 0L, 1L, 3L, 2000L, -1L, false),
                Arguments.of(3, 0L, 1L, 2L, 3000L, -1L, false),
                Arguments.of(4, 0L, 1L, 1L, 4000L, -1L, false),
                Arguments.of(5, 0L, 1L, 0L, 5000L, -1L, false),
                Arguments.of(6, 0L, 1L, 0L, 5000L, 1000L, true),
                Arguments.of(7, 3000L, 1L, 2L, 3000L, -1L, false),
                Arguments.of(8, 3100L, 1L, 1L, 3900L, -1L, false),
                Arguments.of(9, 4000L, 1L, 1L, 4000L, -1L, false),
                Arguments.of(10, 8000L, 1L, 4L, 1000L, -1L, false),
                Arguments.of(11, 9500L, 1L, 4L, 1000L, -1L, false),
                Arguments.of(12, 9500L, 0L, 4L, 1000L, -1L, false),
                Arguments.of(13, 9500L, 2L, 2L, 3000L, -1L, false),
                Arguments.of(14, 9500L, 5L, 2L, 3000L, 3000L, true));
    }

    @Test
    void acquire_redisCellVectors_reproduceClThrottleReplies() {
        // Given redis-cell's test limiter: CL.THROTTLE key 4 1 1 (limit 5, one per second)
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(1)).burst(4).build();
        Cell cell = gcra.newCell(START);
        MutableDecision out = new MutableDecision();
        redisCellVectors().forEach(args -> {
            Object[] a = args.get();
            long now = START + (long) a[1] * MS;
            long quantity = (long) a[2];
            long retryMs = (long) a[5];
            boolean limited = (boolean) a[6];

            // When the case's request is made
            gcra.acquire(cell, now, quantity, out);

            // Then the reply is redis-cell's, with -1 as NEVER
            Decision expected = new Decision(limited ? Outcome.DENIED : Outcome.ALLOWED, 5,
                    (long) a[3], (long) a[4] * MS,
                    limited ? (retryMs < 0 ? Decision.NEVER : retryMs * MS) : 0, 0);
            assertEquals(expected, out.toDecision(), "redis-cell case " + a[0]);
        });
    }

    @Test
    void acquire_zeroBurst_spacesRequestsByTheEmissionInterval() {
        // Given max_burst 0: limit 1, one request per 100 ms
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(10)).burst(0).build();
        Cell cell = gcra.newCell(START);
        MutableDecision out = new MutableDecision();

        assertEquals(1, gcra.limit());
        assertEquals(Algorithm.ADMITTED, gcra.acquire(cell, START, 1, out));
        assertEquals(Algorithm.DENIED, gcra.acquire(cell, START + 99 * MS, 1, out));
        assertEquals(MS, out.retryAfterNanos());
        assertEquals(Algorithm.ADMITTED, gcra.acquire(cell, START + 100 * MS, 1, out));
    }

    @Test
    void acquire_denial_doesNotWrite() {
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(1)).burst(1).build();
        Cell cell = gcra.newCell(START);
        gcra.acquire(cell, START, 2, null);
        long before = cell.word();

        assertEquals(Algorithm.DENIED, gcra.acquire(cell, START, 1, null));
        assertEquals(Algorithm.DENIED, gcra.acquire(cell, START, 3, null));
        assertEquals(before, cell.word());
    }

    @Test
    void isFresh_onceTheTatHasPassed_andRetireIfFreshRetires() {
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(1)).burst(2).build();
        Cell cell = gcra.newCell(START);
        gcra.acquire(cell, START, 2, null);

        assertFalse(gcra.isFresh(cell, START + 2 * S - 1));
        assertFalse(gcra.retireIfFresh(cell, START + 2 * S - 1));
        assertTrue(gcra.isFresh(cell, START + 2 * S));
        assertTrue(gcra.retireIfFresh(cell, START + 2 * S));
        assertEquals(Algorithm.RETIRED, gcra.acquire(cell, START + 2 * S, 1, null));
    }

    @Test
    void refund_atOnce_neverGoesBelowFresh() {
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(1)).burst(2).build();
        Cell cell = gcra.newCell(START);
        MutableDecision out = new MutableDecision();
        gcra.acquire(cell, START, 3, out);
        assertEquals(0, out.remaining());

        gcra.refund(cell, 10, out.receipt(), () -> START);

        gcra.acquire(cell, START, 0, out);
        assertEquals(3, out.remaining());
        assertEquals(0, out.resetNanos());
    }

    @Test
    void refund_afterTheTatBecameDueAndWasPushedAgain_givesNothingBack() {
        // Given 3 at once, one a second: 3 taken at 0 s; at 3 s the TAT is due and 3 are taken
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(1)).burst(2).build();
        Cell cell = gcra.newCell(START);
        MutableDecision first = new MutableDecision();
        gcra.acquire(cell, START, 3, first);
        assertEquals(Algorithm.ADMITTED, gcra.acquire(cell, START + 3 * S, 3, null));

        // When the first admission is refunded only now
        gcra.refund(cell, 3, first.receipt(), () -> START + 3 * S);

        // Then nothing is given back: the TAT is the later admission's
        assertEquals(Algorithm.DENIED, gcra.acquire(cell, START + 3 * S, 1, null));
    }

    @Test
    void refund_partlyDue_givesBackWhatIsStillAhead() {
        // Given 3 at once, one a second: 3 taken at 0 s (TAT 3 s), then 1 more at 1 s (TAT 4 s)
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(1)).burst(2).build();
        Cell cell = gcra.newCell(START);
        MutableDecision first = new MutableDecision();
        gcra.acquire(cell, START, 3, first);
        assertEquals(Algorithm.ADMITTED, gcra.acquire(cell, START + S, 1, null));

        // When the first admission is refunded at 1 s
        gcra.refund(cell, 3, first.receipt(), () -> START + S);

        // Then 2 seconds of TAT come back (the third had become due): TAT 2 s, so 2 more fit
        assertEquals(Algorithm.ADMITTED, gcra.acquire(cell, START + S, 2, null));
        assertEquals(Algorithm.DENIED, gcra.acquire(cell, START + S, 1, null));
    }

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(1L, Duration.ofSeconds(1), 4L, 11L),
                Arguments.of(3L, Duration.ofSeconds(1), 0L, 12L),
                Arguments.of(1000L, Duration.ofMinutes(1), 50L, 13L),
                Arguments.of(7L, Duration.ofMillis(10), 2L, 14L));
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_matchesRedisCellModel(long permits, Duration period, long burst,
            long seed) {
        // Given the algorithm and redis-cell's rate_limit() transcribed as a model
        Gcra gcra = Gcra.builder().rate(Rate.of(permits, period)).burst(burst).build();

        // When 100,000 random requests and refunds are made, Then every decision is the model's
        ModelCheck.run(gcra, GcraModel.exact(Rate.of(permits, period), burst), seed, 100_000,
                gcra.emissionIntervalNanos(), 0.1);
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void acquire_randomWorkload_neverAdmitsMoreThanBurstPlusRate(long permits, Duration period,
            long burst, long seed) {
        Gcra gcra = Gcra.builder().rate(Rate.of(permits, period)).burst(burst).build();

        // Refunds included: the admissions that stay never exceed the burst plus the rate
        List<ModelCheck.Event> admitted = ModelCheck.run(gcra,
                GcraModel.exact(Rate.of(permits, period), burst), seed + 100, 100_000,
                gcra.emissionIntervalNanos(), 0.2);

        Invariants.bucket(admitted, burst + 1, period.toNanos(), permits);
    }

    @Test
    void builder_badConfiguration_failsNamingTheParameterAndValue() {
        Expect.illegalArgument("permits must be >= 1 but was 0",
                () -> Gcra.builder().rate(Rate.perSecond(0)));
        Expect.illegalArgument("period must be > 0 but was 0s",
                () -> Gcra.builder().rate(Rate.of(1, Duration.ZERO)));
        Expect.illegalArgument("burst must be >= 0 but was -1",
                () -> Gcra.builder().burst(-1));
        IllegalArgumentException overflow = assertThrows(IllegalArgumentException.class,
                () -> Gcra.builder().rate(Rate.of(1, Duration.ofDays(365))).burst(1_000_000).build());
        assertTrue(overflow.getMessage().contains("emission interval * (burst + 1) would overflow"),
                overflow.getMessage());
        assertThrows(IllegalStateException.class, () -> Gcra.builder().burst(1).build());
        assertThrows(NullPointerException.class, () -> Gcra.builder().rate(null));
    }

    @Test
    void equals_sameConfiguration_isEqual() {
        assertEquals(Gcra.builder().rate(Rate.perSecond(10)).burst(5).build(), Gcra.builder().rate(Rate.perSecond(10)).burst(5).build());
        assertEquals(Gcra.builder().rate(Rate.perSecond(10)).burst(5).build().hashCode(),
                Gcra.builder().rate(Rate.perSecond(10)).burst(5).build().hashCode());
        assertFalse(Gcra.builder().rate(Rate.perSecond(10)).burst(5).build().equals(Gcra.builder().rate(Rate.perSecond(10)).burst(4).build()));
        assertEquals("gcra", Gcra.builder().rate(Rate.perSecond(10)).burst(5).build().kind());
    }
}
