package io.github.sluice.core;


/**
 * The one class in Sluice that reads the system's clocks. The wall clock is read once, to anchor
 * the monotonic {@link System#nanoTime()} to the Unix epoch.
 */
final class SystemClock implements Clock {

    /** The shared instance. */
    static final SystemClock INSTANCE = new SystemClock();

    private final long offset;

    private SystemClock() {
        long wallNanos = Math.multiplyExact(System.currentTimeMillis(), 1_000_000L);
        this.offset = wallNanos - System.nanoTime();
    }

    @Override
    public long nanos() {
        return System.nanoTime() + offset;
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }
}
