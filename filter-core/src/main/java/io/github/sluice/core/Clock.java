package io.github.sluice.core;


/**
 * The only source of time in Sluice: a monotonic reading in nanoseconds.
 *
 * <p>Readings never go backwards and are anchored to the Unix epoch at the moment the clock was
 * created, so that windows aligned to the epoch (e.g. a fixed window that starts on the minute)
 * start where users expect. Later adjustments of the wall clock (NTP steps, leap smearing) do not
 * affect readings.
 *
 * <p>Implementations must be thread-safe. Tests inject a fake clock and advance it by hand instead
 * of sleeping.
 */
@FunctionalInterface
public interface Clock {

    /**
     * Returns the current reading.
     *
     * @return nanoseconds since the Unix epoch, monotonic non-decreasing
     */
    long nanos();

    /**
     * Returns the system clock: the JVM's monotonic nanosecond timer, anchored to the wall clock
     * once, at class initialisation.
     *
     * @return the shared system clock, never {@code null}
     */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}
