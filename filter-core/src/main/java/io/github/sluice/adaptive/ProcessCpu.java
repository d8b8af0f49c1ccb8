package io.github.sluice.adaptive;

import io.github.sluice.core.Clock;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * {@link CpuGauge#process()}: the share of the processors available to the JVM that the process
 * used between two readings of this gauge, from the platform MXBean's cumulative process CPU
 * time ({@code com.sun.management.OperatingSystemMXBean.getProcessCpuTime()}), read at most
 * every {@value #INTERVAL_MILLIS} ms of the caller's clock, as Sentinel's system rule computes
 * it. Not {@code getProcessCpuLoad()}: the JVM keeps one window for that value, shared by
 * every caller in the process, so another reader (a metrics agent polling it) shortens the
 * window of this one's readings down to nothing, and one call costs a few hundred microseconds
 * (it reads {@code /proc} files on Linux), paid by the request that finds the reading due; the
 * CPU time is one system call, and the window is this gauge's own. The HotSpot (and OpenJ9)
 * extension interface is reached through a public method handle, so that filter-core needs only
 * {@code java.management}, and a JVM without it is detected when a policy is built, not at its
 * first request.
 *
 * <p>The CPU time is divided by the CPUs the process may use: the container's CPU quota where
 * the cgroup files give one ({@link CgroupCpu}: v2 {@code cpu.max}, v1 {@code cpu.cfs_quota_us}
 * over {@code cpu.cfs_period_us}), fractions included, as Kratos's {@code WithCPUQuota} does,
 * capped at the processors available to the JVM; otherwise those processors. The JVM rounds a
 * fractional quota up to whole processors, so a 0.5-CPU pod divided by its one processor would
 * read at most 50 % and a BBR threshold above that would never shed. The quota is read once,
 * when the gauge is made; a cgroup file that cannot be read or parsed falls back to the
 * processors and is logged once (logger {@code io.github.sluice.adaptive}, WARNING).
 */
final class ProcessCpu implements CpuGauge {

    /** The shortest time between two readings: Kratos's sampling period. */
    static final long INTERVAL_MILLIS = 500;

    private static final long INTERVAL = INTERVAL_MILLIS * 1_000_000L;
    private static final VarHandle NEXT;
    private static final MethodHandle READ;
    private static final Object BEAN;
    private static final ProcessCpu INSTANCE;
    private static final String UNAVAILABLE;
    private static final System.Logger LOG = System.getLogger("io.github.sluice.adaptive");
    /** Whether a cgroup problem was logged already: it is said once per process. */
    private static final AtomicBoolean QUOTA_WARNED = new AtomicBoolean();

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(ProcessCpu.class, "next", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        MethodHandle read = null;
        Object bean = null;
        String why = null;
        try {
            OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            Class<?> extension = Class.forName("com.sun.management.OperatingSystemMXBean", false,
                    ClassLoader.getPlatformClassLoader());
            if (!extension.isInstance(os)) {
                why = "its OperatingSystemMXBean (" + os.getClass().getName() + ") is not a "
                        + extension.getName();
            } else {
                MethodHandle h = MethodHandles.publicLookup()
                        .findVirtual(extension, "getProcessCpuTime", MethodType.methodType(long.class))
                        .asType(MethodType.methodType(long.class, Object.class));
                long probe = (long) h.invokeExact((Object) os);
                if (probe < 0) {
                    why = "getProcessCpuTime() returned " + probe + " (not supported on this platform)";
                } else {
                    read = h;
                    bean = os;
                }
            }
        } catch (LinkageError e) {
            why = "com.sun.management.OperatingSystemMXBean.getProcessCpuTime() is not available (" + e + ")";
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            why = "com.sun.management.OperatingSystemMXBean.getProcessCpuTime() is not available (" + e + ")";
        }
        READ = read;
        BEAN = bean;
        UNAVAILABLE = why;
        INSTANCE = read == null ? null : new ProcessCpu();
    }

    /** The counters at one reading; immutable, so a reading publishes both at once. */
    private record Reading(long cpuNanos, long wallNanos) {
    }

    /** The clock reading at which the next reading is due. */
    private volatile long next = Long.MIN_VALUE;
    private volatile double value = -1;
    /** The counters at the last reading: the start of the next one's window. */
    private volatile Reading last;
    private final LongSupplier cpuTime;
    private final LongSupplier wallTime;
    /** The CPUs the process may use: the container's quota, or the processors. */
    private final double capacity;

    private ProcessCpu() {
        this(ProcessCpu::cpuTime, () -> Clock.system().nanos(),
                capacity(CgroupCpu.read(CgroupCpu.DEFAULT_ROOT, CgroupCpu.PROC_SELF_CGROUP),
                        Runtime.getRuntime().availableProcessors(), ProcessCpu::warnOnce));
    }

    /** A gauge on the given counters (tests): CPU time and wall time in nanoseconds. */
    ProcessCpu(LongSupplier cpuTime, LongSupplier wallTime, double capacity) {
        this.cpuTime = cpuTime;
        this.wallTime = wallTime;
        this.capacity = capacity;
        this.last = new Reading(cpuTime.getAsLong(), wallTime.getAsLong());
    }

    /**
     * The CPUs a reading is divided by: the quota where there is one, at most the processors;
     * the processors if there is none, or (reported to {@code warn}) if it is unknown.
     */
    static double capacity(CgroupCpu quota, int processors, Consumer<String> warn) {
        if (quota.problem() != null) {
            warn.accept("CPU usage for bbr is read against the " + processors + " processors available to"
                    + " the JVM, not a container quota: " + quota.problem());
            return processors;
        }
        return quota.cpus() > 0 ? Math.min(quota.cpus(), processors) : processors;
    }

    private static void warnOnce(String message) {
        if (QUOTA_WARNED.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, message);
        }
    }

    /** @return the CPUs a reading is divided by */
    double capacity() {
        return capacity;
    }

    /**
     * @return the shared gauge
     * @throws UnsupportedOperationException if this JVM does not report its process's CPU time
     */
    static ProcessCpu instance() {
        if (INSTANCE == null) {
            throw new UnsupportedOperationException("the CPU usage of this JVM's process is not available: "
                    + UNAVAILABLE + "; give the bbr algorithm a CpuGauge of its own");
        }
        return INSTANCE;
    }

    /**
     * @return a gauge of its own, with its own window (for tests)
     * @throws UnsupportedOperationException if this JVM does not report its process's CPU time
     */
    static ProcessCpu fresh() {
        instance();
        return new ProcessCpu();
    }

    /**
     * @param cgroupRoot where the cgroup files are (tests pass fake ones)
     * @param procSelfCgroup the process's cgroup list
     * @param warn where a cgroup problem is reported
     * @return a gauge of its own, on the process's CPU time, divided by the quota read there
     */
    static ProcessCpu fresh(Path cgroupRoot, Path procSelfCgroup, Consumer<String> warn) {
        instance();
        return new ProcessCpu(ProcessCpu::cpuTime, () -> Clock.system().nanos(),
                capacity(CgroupCpu.read(cgroupRoot, procSelfCgroup), Runtime.getRuntime().availableProcessors(), warn));
    }

    @Override
    public double usage(long nowNanos) {
        long due = next;
        if (nowNanos >= due && NEXT.compareAndSet(this, due, nowNanos + INTERVAL)) {
            read();
        }
        return value;
    }

    private void read() {
        long cpu = cpuTime.getAsLong();
        long wall = wallTime.getAsLong();
        Reading before = last;
        long elapsed = wall - before.wallNanos;
        if (cpu < 0 || before.cpuNanos < 0) {
            value = -1; // unknown: never shed on a reading we do not have
        } else if (elapsed > 0) {
            double used = (double) (cpu - before.cpuNanos) / ((double) elapsed * capacity);
            value = Math.max(0, Math.min(1, used));
        }
        last = new Reading(cpu, wall);
    }

    private static long cpuTime() {
        if (READ == null) {
            return -1;
        }
        try {
            return (long) READ.invokeExact(BEAN);
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            return -1;
        }
    }

    @Override
    public String toString() {
        return "CpuGauge.process()";
    }
}
