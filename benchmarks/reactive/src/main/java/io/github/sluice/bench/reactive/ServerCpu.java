package io.github.sluice.bench.reactive;

import java.lang.management.ManagementFactory;

/**
 * The CPU time this JVM's server side has used: the sum over its live Java threads of their CPU
 * time, leaving out the load generator's threads ({@code load-*}) and the backend's
 * ({@code backend-*}), which share the JVM but are not the server. What it covers: Reactor Netty's
 * event loops (the server's and, in the gateway, its HTTP client's), Lettuce's event loops, the
 * timers' threads. What it leaves out: the garbage collector and the JIT compilers (not Java
 * threads); an allocation's cost shows only in the allocating thread's time.
 */
final class ServerCpu {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private ServerCpu() {
    }

    /**
     * @return the server side's CPU time so far by thread group (the name without its digits), ns:
     *     which threads a candidate's CPU goes to
     */
    static java.util.Map<String, Long> byGroup() {
        long[] ids = THREADS.getAllThreadIds();
        long[] cpu = THREADS.getThreadCpuTime(ids);
        java.lang.management.ThreadInfo[] info = THREADS.getThreadInfo(ids);
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (info[i] == null || cpu[i] < 0) {
                continue;
            }
            String name = info[i].getThreadName();
            if (name.startsWith("load-") || name.startsWith("backend-") || name.equals("main")) {
                continue;
            }
            out.merge(name.replaceAll("[0-9]+", "#"), cpu[i], Long::sum);
        }
        return out;
    }

    /**
     * The threads of Sluice's Redis timer ({@code sluice-redis-timer-*}), which {@link #nanos()}
     * leaves out: a command timeout that is cancelled when Redis answers stays queued until its
     * deadline (2 s here), and wakes the timer then, in whatever batch runs 2 s later. Measured
     * over a whole run and charged to Sluice's requests instead.
     *
     * @return their CPU time so far, ns
     */
    static long timerNanos() {
        long[] ids = THREADS.getAllThreadIds();
        long[] cpu = THREADS.getThreadCpuTime(ids);
        java.lang.management.ThreadInfo[] info = THREADS.getThreadInfo(ids);
        long sum = 0;
        for (int i = 0; i < ids.length; i++) {
            if (info[i] != null && cpu[i] > 0 && info[i].getThreadName().startsWith(TIMER)) {
                sum += cpu[i];
            }
        }
        return sum;
    }

    private static final String TIMER = "sluice-redis-timer-";

    /** @return the server side's CPU time so far, ns */
    static long nanos() {
        long[] ids = THREADS.getAllThreadIds();
        long[] cpu = THREADS.getThreadCpuTime(ids);
        java.lang.management.ThreadInfo[] info = THREADS.getThreadInfo(ids);
        long sum = 0;
        for (int i = 0; i < ids.length; i++) {
            if (info[i] == null || cpu[i] < 0) {
                continue;
            }
            String name = info[i].getThreadName();
            if (name.startsWith("load-") || name.startsWith("backend-") || name.equals("main") || name.startsWith(TIMER)) {
                continue;
            }
            sum += cpu[i];
        }
        return sum;
    }
}
