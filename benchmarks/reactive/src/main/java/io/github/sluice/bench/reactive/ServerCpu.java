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
            if (name.startsWith("load-") || name.startsWith("backend-") || name.equals("main")) {
                continue;
            }
            sum += cpu[i];
        }
        return sum;
    }
}
