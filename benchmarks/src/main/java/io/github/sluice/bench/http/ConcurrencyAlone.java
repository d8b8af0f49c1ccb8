package io.github.sluice.bench.http;

import io.github.sluice.servlet.SluiceFilter;
import jakarta.servlet.FilterChain;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * The Sluice candidate of {@link FilterCpuGroup}'s {@code concurrency} group alone, in a JVM of its
 * own and nothing else: the loop to profile (JFR, {@code -XX:+PrintInlining}) or to time variants
 * of the filter with, one JVM each. Prints the thread CPU nanoseconds per request of each round
 * and their median, and the bytes the thread allocated per request over the measured rounds
 * (the request path's own allocation: the request and response are reused).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.http.ConcurrencyAlone <rounds>}
 * (1,000,000 requests per round, after 8 rounds of warm-up).
 */
public final class ConcurrencyAlone {

    private static final int REQUESTS = 1_000_000;
    private static final int WARM_UP = 8;
    private static volatile long sink;

    private ConcurrencyAlone() {
    }

    /**
     * @param args the number of rounds
     * @throws Exception if the filter fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        FilterCpuGroup.MinimalRequest request = new FilterCpuGroup.MinimalRequest();
        FilterCpuGroup.MinimalResponse response = new FilterCpuGroup.MinimalResponse();
        FilterChain chain = (req, res) -> sink++;
        SluiceFilter filter = Setups.equalWork("concurrency");
        double[] perRequest = new double[rounds];
        com.sun.management.ThreadMXBean bytes = (com.sun.management.ThreadMXBean) threads;
        long allocated = 0;
        for (int r = 0; r < WARM_UP + rounds; r++) {
            if (r == WARM_UP) {
                allocated = bytes.getCurrentThreadAllocatedBytes();
            }
            long before = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < REQUESTS; i++) {
                request.recycle();
                response.recycle();
                filter.doFilter(request, response, chain);
            }
            if (r >= WARM_UP) {
                perRequest[r - WARM_UP] = (threads.getCurrentThreadCpuTime() - before) / (double) REQUESTS;
            }
        }
        allocated = bytes.getCurrentThreadAllocatedBytes() - allocated;
        filter.destroy();
        double[] sorted = perRequest.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "median %.1f ns CPU per request, %.1f bytes allocated per request; rounds %s%n",
                sorted[rounds / 2], allocated / ((double) rounds * REQUESTS), Arrays.toString(perRequest));
    }
}
