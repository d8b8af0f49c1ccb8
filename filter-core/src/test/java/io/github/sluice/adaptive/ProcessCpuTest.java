package io.github.sluice.adaptive;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * {@link CpuGauge#process()} on the real JVM. Its verdicts compare the gauge with the CPU time
 * this test's own thread is measured to have used, so they hold however slow or loaded the
 * machine is.
 */
class ProcessCpuTest {

    private static final long MS = 1_000_000L;

    /**
     * A metrics agent that polls {@code getProcessCpuLoad()} (the JVM keeps one window for it,
     * shared by every caller) must not blind the gauge: a gauge that read that value saw only
     * the last millisecond's window, mostly 0, and a BBR limit on it never shed.
     */
    @Test
    void metricsAgentPollingTheJvmsCpuLoad_doesNotBlindTheGauge() throws InterruptedException {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        AtomicBoolean stop = new AtomicBoolean();
        Thread agent = new Thread(() -> {
            while (!stop.get()) {
                os.getProcessCpuLoad();
                LockSupport.parkNanos(MS);
            }
        }, "metrics-agent");
        agent.setDaemon(true);
        agent.start();
        try {
            for (int round = 0; round < 3; round++) {
                CpuGauge gauge = ProcessCpu.fresh();
                long cpu0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                gauge.usage(t0); // the window of the next reading starts here
                long own = burn(threads, cpu0, t0);
                long t1 = System.nanoTime();
                double usage = gauge.usage(t1);

                // This thread alone used `own` of the window's CPU time (one tick of the OS's
                // accounting is 10 ms; half the floor leaves room for it).
                double floor = own / ((double) (t1 - t0) * Runtime.getRuntime().availableProcessors());
                assertTrue(usage >= floor / 2, "round " + round + ": usage " + usage + " but this thread alone used "
                        + TimeUnit.NANOSECONDS.toMillis(own) + " ms of CPU in " + TimeUnit.NANOSECONDS.toMillis(t1 - t0)
                        + " ms, at least " + floor);
            }
        } finally {
            stop.set(true);
            agent.join();
        }
    }

    /**
     * Uses this thread's CPU until the gauge's interval has passed and the thread has used at
     * least 150 ms of CPU, far more than the OS's accounting tick.
     *
     * @return the CPU time this thread used since {@code cpu0}, nanoseconds
     */
    private static long burn(ThreadMXBean threads, long cpu0, long t0) {
        long x = 0;
        while (true) {
            for (int i = 0; i < 100_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            long own = threads.getCurrentThreadCpuTime() - cpu0;
            if (System.nanoTime() - t0 > (ProcessCpu.INTERVAL_MILLIS + 100) * MS && own >= 150 * MS && x != 42) {
                return own;
            }
        }
    }
}
