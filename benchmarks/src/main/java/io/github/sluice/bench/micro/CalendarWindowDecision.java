package io.github.sluice.bench.micro;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.limiter.Limiter;
import java.time.Duration;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A calendar window's decision against the epoch-aligned fixed window's, on one key with the
 * system clock: the same algorithm, the calendar's window read from its cache, so the two should
 * cost the same (and allocate nothing: run with {@code -prof gc}). Allowed: limits no run can
 * spend; denied: a limit of one, spent in setup (the window lasts a month, or 31 days).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CalendarWindowDecision {

    private static final long OPEN = 1_000_000_000_000L;
    private static final CalendarPeriod MONTH = CalendarPeriod.of(CalendarPeriod.Unit.MONTH, ZoneId.of("Europe/Paris"));

    Limiter<FixedWindow.WindowCell> epochOpen;
    Limiter<FixedWindow.WindowCell> calendarOpen;
    Limiter<FixedWindow.WindowCell> epochShut;
    Limiter<FixedWindow.WindowCell> calendarShut;

    /** Builds the limiters; the shut ones are spent. */
    @Setup(Level.Trial)
    public void setUp() {
        epochOpen = Limiter.of(FixedWindow.of(OPEN, Duration.ofDays(31)));
        calendarOpen = Limiter.of(FixedWindow.of(OPEN, MONTH));
        epochShut = Limiter.of(FixedWindow.of(1, Duration.ofDays(31)));
        calendarShut = Limiter.of(FixedWindow.of(1, MONTH));
        epochShut.tryAcquire();
        calendarShut.tryAcquire();
    }

    /** A per-thread decision holder, reused as the filter reuses one per request. */
    @State(Scope.Thread)
    public static class Holder {
        /** The reused holder. */
        public final MutableDecision out = new MutableDecision();
    }

    /**
     * @param h the holder
     * @return admitted
     */
    @Benchmark
    public boolean epochAllowed(Holder h) {
        return epochOpen.acquire(1, h.out);
    }

    /**
     * @param h the holder
     * @return admitted
     */
    @Benchmark
    public boolean calendarAllowed(Holder h) {
        return calendarOpen.acquire(1, h.out);
    }

    /**
     * @param h the holder
     * @return admitted (never)
     */
    @Benchmark
    public boolean epochDenied(Holder h) {
        return epochShut.acquire(1, h.out);
    }

    /**
     * @param h the holder
     * @return admitted (never)
     */
    @Benchmark
    public boolean calendarDenied(Holder h) {
        return calendarShut.acquire(1, h.out);
    }
}
