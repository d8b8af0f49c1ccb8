package io.github.sluice.adaptive;

/**
 * The CPU usage that {@link Bbr} compares with its threshold.
 *
 * <p>Implementations are thread-safe, cheap enough to be read on every admission (cache the
 * reading and refresh it at most every few hundred milliseconds), never block, and take time
 * only from the {@code now} they are given.
 */
@FunctionalInterface
public interface CpuGauge {

    /**
     * Returns the CPU usage at {@code now}.
     *
     * @param nowNanos the caller's clock reading, nanoseconds
     * @return the share of the CPU in use, between 0 and 1; a negative value means unknown, which
     *     {@link Bbr} treats as 0 (below any threshold: it does not shed on a reading it does not
     *     have)
     */
    double usage(long nowNanos);

    /**
     * Returns the JVM process's CPU usage, as the platform's {@code OperatingSystemMXBean}
     * reports it ({@code com.sun.management.OperatingSystemMXBean.getProcessCpuLoad()}: the
     * share of the CPUs available to the JVM that the process used since the previous reading),
     * read at most every {@value ProcessCpu#INTERVAL_MILLIS} ms of the caller's clock by whichever
     * thread is first to find the reading due. The process's usage, not the system's: it is this
     * server's overload that the limit guards against, not a neighbour's.
     *
     * @return the shared gauge, never {@code null}
     * @throws UnsupportedOperationException if this JVM does not report its process's CPU load
     */
    static CpuGauge process() {
        return ProcessCpu.instance();
    }
}
