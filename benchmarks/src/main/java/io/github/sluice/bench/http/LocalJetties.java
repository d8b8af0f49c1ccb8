package io.github.sluice.bench.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The in-process Jetty configurations of {@link FilterCpu} ({@link LocalJetty}), measured in
 * interleaved rounds: each round runs a batch of requests through every configuration, in an
 * order that rotates.
 */
final class LocalJetties {

    /** Requests per configuration and round. */
    static final int BATCH = 20_000;
    /**
     * Every configuration {@link LocalJetty} knows, in report order; {@code none} is the reference of
     * the filters, {@code none-handler} of the handlers.
     */
    static final List<String> LIMITERS = List.of("none", "noop", "fields", "sluice", "sluice-nofields", "sluice-window",
            "sluice-leaky", "sluice-concurrency", "ratelimit", "ratelimit-fields", "qosfilter", "dosfilter", "none-handler",
            "noop-handler", "qos", "dos");

    private LocalJetties() {
    }

    /**
     * @param limiters the configurations to measure, of {@link #LIMITERS}
     * @param rounds measured rounds, after a warm-up of 6 batches per configuration
     * @return per configuration, the CPU nanoseconds per request between its readings in each round
     * @throws Exception if a server fails
     */
    static Map<String, double[]> measure(List<String> limiters, int rounds) throws Exception {
        Map<String, LocalJetty> servers = new LinkedHashMap<>();
        try {
            for (String l : limiters) {
                servers.put(l, new LocalJetty(l));
            }
            for (int w = 0; w < 6; w++) {
                for (LocalJetty j : servers.values()) {
                    j.requests(BATCH);
                }
            }
            Map<String, double[]> out = new LinkedHashMap<>();
            limiters.forEach(l -> out.put(l, new double[rounds]));
            List<String> names = new ArrayList<>(limiters);
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < names.size(); k++) {
                    String name = names.get((k + r) % names.size());
                    out.get(name)[r] = servers.get(name).cpuPerRequest(BATCH);
                }
            }
            return out;
        } finally {
            for (LocalJetty j : servers.values()) {
                j.close();
            }
        }
    }
}
