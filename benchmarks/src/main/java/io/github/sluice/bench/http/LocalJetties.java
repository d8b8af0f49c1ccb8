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
    /** The configurations, in report order; {@code none} is the reference. */
    static final List<String> LIMITERS = List.of("none", "fields", "sluice", "sluice-nofields", "ratelimit", "ratelimit-fields",
            "none-handler", "qos", "dos");

    private LocalJetties() {
    }

    /**
     * @param rounds measured rounds, after a warm-up of 6 batches per configuration
     * @return per configuration, the CPU nanoseconds per request between its readings in each round
     * @throws Exception if a server fails
     */
    static Map<String, double[]> measure(int rounds) throws Exception {
        Map<String, LocalJetty> servers = new LinkedHashMap<>();
        try {
            for (String l : LIMITERS) {
                servers.put(l, new LocalJetty(l));
            }
            for (int w = 0; w < 6; w++) {
                for (LocalJetty j : servers.values()) {
                    j.requests(BATCH);
                }
            }
            Map<String, double[]> out = new LinkedHashMap<>();
            LIMITERS.forEach(l -> out.put(l, new double[rounds]));
            List<String> names = new ArrayList<>(LIMITERS);
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
