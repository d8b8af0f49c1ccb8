package io.github.sluice.adaptive;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * {@link CpuGauge#process()}: the process CPU load of the platform MXBean, refreshed at most
 * every {@value #INTERVAL_MILLIS} ms. The HotSpot (and OpenJ9) extension interface is reached
 * through a public method handle, so that filter-core needs only {@code java.management}, and a
 * JVM without it is detected when a policy is built, not at its first request.
 */
final class ProcessCpu implements CpuGauge {

    /** The shortest time between two readings: Kratos's sampling period. */
    static final long INTERVAL_MILLIS = 500;

    private static final long INTERVAL = INTERVAL_MILLIS * 1_000_000L;
    private static final VarHandle NEXT;
    private static final ProcessCpu INSTANCE;
    private static final String UNAVAILABLE;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(ProcessCpu.class, "next", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        ProcessCpu gauge = null;
        String why = null;
        try {
            OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
            Class<?> extension = Class.forName("com.sun.management.OperatingSystemMXBean", false,
                    ClassLoader.getPlatformClassLoader());
            if (!extension.isInstance(bean)) {
                why = "its OperatingSystemMXBean (" + bean.getClass().getName() + ") is not a "
                        + extension.getName();
            } else {
                MethodHandle read = MethodHandles.publicLookup()
                        .findVirtual(extension, "getProcessCpuLoad", MethodType.methodType(double.class))
                        .asType(MethodType.methodType(double.class, Object.class));
                gauge = new ProcessCpu(bean, read);
            }
        } catch (ReflectiveOperationException | LinkageError | SecurityException e) {
            why = "com.sun.management.OperatingSystemMXBean.getProcessCpuLoad() is not available ("
                    + e + ")";
        }
        INSTANCE = gauge;
        UNAVAILABLE = why;
    }

    private final Object bean;
    private final MethodHandle read;
    /** The clock reading at which the next reading is due. */
    private volatile long next = Long.MIN_VALUE;
    private volatile double value = -1;

    private ProcessCpu(Object bean, MethodHandle read) {
        this.bean = bean;
        this.read = read;
    }

    static CpuGauge instance() {
        if (INSTANCE == null) {
            throw new UnsupportedOperationException("the CPU usage of this JVM's process is not available: "
                    + UNAVAILABLE + "; give the bbr algorithm a CpuGauge of its own");
        }
        return INSTANCE;
    }

    @Override
    public double usage(long nowNanos) {
        long due = next;
        if (nowNanos >= due && NEXT.compareAndSet(this, due, nowNanos + INTERVAL)) {
            value = readLoad();
        }
        return value;
    }

    private double readLoad() {
        try {
            return (double) read.invokeExact(bean);
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            return -1; // unknown: never shed on a reading we do not have
        }
    }

    @Override
    public String toString() {
        return "CpuGauge.process()";
    }
}
