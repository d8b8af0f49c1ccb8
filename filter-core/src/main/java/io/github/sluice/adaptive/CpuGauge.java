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
     * Returns the JVM process's CPU usage: the CPU time the process used between two readings
     * of this gauge ({@code com.sun.management.OperatingSystemMXBean.getProcessCpuTime()}),
     * divided by the time between them and by the CPUs the process may use: the container's CPU
     * quota, fractions included (cgroup v2 {@code cpu.max}, v1 {@code cpu.cfs_quota_us} over
     * {@code cpu.cfs_period_us}, as Kratos's {@code WithCPUQuota}), at most the processors
     * available to the JVM, or those processors where there is no quota (a cgroup file that
     * cannot be read or parsed is logged once and falls back to them), read at most every
     * {@value ProcessCpu#INTERVAL_MILLIS} ms of the caller's clock by whichever thread is first
     * to find the reading due; the others read the cached value. The process's usage, not the
     * system's: it is this server's overload that the limit guards against, not a neighbour's.
     * The window is the gauge's own: other readers of the MXBean in the process (a metrics agent
     * polling {@code getProcessCpuLoad()}, whose window the JVM shares between all its callers)
     * do not change its readings. One reading costs a system call (about a microsecond).
     *
     * @return the shared gauge, never {@code null}
     * @throws UnsupportedOperationException if this JVM does not report its process's CPU time
     */
    static CpuGauge process() {
        return ProcessCpu.instance();
    }
}
