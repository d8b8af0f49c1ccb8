package io.github.sluice.bench.micro;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.RequestCost;
import io.github.sluice.request.HeaderSink;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@link RequestCostPath}'s three paths in CPU time and allocated bytes per request, counted for
 * the measuring thread ({@code com.sun.management.ThreadMXBean}) in interleaved rounds, each path
 * first in turn: steady on a loaded machine, where JMH's wall-clock scores are not. Prints the
 * median, minimum and maximum of the rounds.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar
 * io.github.sluice.bench.micro.RequestCostCpu [rounds] [requests per round]} (default 15 and
 * 200000).
 */
public final class RequestCostCpu {

    private static Object consumed;

    private RequestCostCpu() {
    }

    /** @param args rounds and requests per round, both optional */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        RequestCostPath.Request request = new RequestCostPath.Request(Map.of("x-cost", List.of("3"),
                "content-length", List.of("3000")));
        String[] names = {"constant (cost=3)", "header (cost=header:X-Cost)", "body (cost=body)"};
        Enforcer[] enforcers = {enforcer(RequestCost.of(3)), enforcer(RequestCost.header("X-Cost")),
            enforcer(RequestCost.body(RequestCost.DEFAULT_BODY_UNIT))};
        HeaderSink sink = (name, value) -> consumed = value;
        long[][] cpu = new long[enforcers.length][rounds];
        long[][] bytes = new long[enforcers.length][rounds];
        for (int warm = 0; warm < 3; warm++) {
            for (Enforcer e : enforcers) {
                run(e, request, sink, n);
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < enforcers.length; k++) {
                int j = (k + r) % enforcers.length;
                long c0 = threads.getCurrentThreadCpuTime();
                long b0 = threads.getCurrentThreadAllocatedBytes();
                run(enforcers[j], request, sink, n);
                cpu[j][r] = threads.getCurrentThreadCpuTime() - c0;
                bytes[j][r] = threads.getCurrentThreadAllocatedBytes() - b0;
            }
        }
        for (int j = 0; j < enforcers.length; j++) {
            long[] c = cpu[j].clone();
            long[] b = bytes[j].clone();
            Arrays.sort(c);
            Arrays.sort(b);
            System.out.printf("%-28s CPU %.1f ns/request (median; min %.1f, max %.1f), %.1f B/request%n", names[j],
                    (double) c[rounds / 2] / n, (double) c[0] / n, (double) c[rounds - 1] / n,
                    (double) b[rounds / 2] / n);
            enforcers[j].close();
        }
    }

    private static void run(Enforcer e, RequestCostPath.Request request, HeaderSink sink, int n) {
        for (int i = 0; i < n; i++) {
            Verdict v = e.enforce(request);
            v.writeHeaders(sink);
            if (v.cost(0) != 3 || !v.admitted()) {
                throw new IllegalStateException("left the allowed path: " + v);
            }
        }
    }

    private static Enforcer enforcer(RequestCost cost) {
        return Enforcer.builder().listener(EnforcementListener.NONE)
                .policy(Policy.builder("per-ip").algorithm(Configs.OPEN.tokenBucket()).key(KeyResolvers.ip())
                        .cost(cost).build())
                .build();
    }
}
