package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.key.KeyResolvers;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link PolicyFormat} writes what the user would have written, and what it writes parses back to
 * an equal policy: the property behind the start-up line, which must describe the policies in
 * force and not approximately.
 */
class PolicyFormatTest {

    private static final List<String> UNITS = List.of("ms", "s", "m", "h", "d");
    private static final List<String> KEYS = List.of("ip", "header:X-Api-Key", "principal", "attribute:tenant", "global",
            "constant:abc", "header:X-Api-Key|ip", "principal|header:X-Key|ip");
    private static final List<String> MATCHES = List.of("/api/*", "POST:/login", "GET|POST:/a/*,/b", "/exact", "none",
            "OPTIONS:/api/*");

    @Test
    void format_writtenPolicies_readAsWritten() {
        for (String line : List.of(
                "per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*",
                "login = fixed-window 5/1m key=ip match=POST:/login",
                "inflight = concurrency 50 key=global status=503",
                "api = gcra 10/1s key=header:X-Api-Key|ip unresolved=deny:401",
                "tenants = sliding-window 1000/1h slots=60 key=attribute:tenant dry-run",
                "log = sliding-log 3/10s key=principal allow=10.0.0.0/8,admin",
                "spread = shaping 10/1s slack=2 max-delay=500ms key=ip",
                "cold = warm-up 10/1s warm-up=30s cold-factor=2.5 key=ip",
                "guava = smooth-bursty 5/1s max-burst=2s key=ip",
                "funnel = leaky-bucket 10/1s capacity=50 key=ip cost=2")) {
            assertEquals(line, PolicyFormat.format(Policy.parse(line)));
        }
    }

    @Test
    void format_policyBuiltInCode_readsLikeTheLanguage() {
        Policy p = Policy.builder("per-ip").algorithm(TokenBucket.builder().rate(Rate.perMinute(100)).burst(20).build())
                .key(KeyResolvers.ip()).match(Match.paths("/api/*")).build();
        assertEquals("per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*", PolicyFormat.format(p));
    }

    @Test
    void format_ofParse_parsesBackToAnEqualPolicy_forRandomPoliciesOfEveryAlgorithm() {
        Random random = new Random(16);
        Map<String, Integer> valid = new TreeMap<>();
        for (int i = 0; i < 6000; i++) {
            String kind = List.of("token-bucket", "gcra", "leaky-bucket", "shaping", "fixed-window", "sliding-window",
                    "sliding-log", "warm-up", "smooth-bursty", "concurrency").get(random.nextInt(10));
            String line = "p" + i + " = " + kind + " " + arguments(kind, random) + options(random);
            Policy p;
            try {
                p = Policy.parse(line);
            } catch (ConfigException invalid) {
                continue; // a random combination the language refuses, e.g. a cost above the limit
            }
            String formatted = PolicyFormat.format(p);
            assertEquals(p, Policy.parse(formatted), () -> line + "\n  was formatted as\n" + formatted);
            valid.merge(kind, 1, Integer::sum);
        }
        assertEquals(10, valid.size(), valid::toString);
        valid.forEach((kind, n) -> assertTrue(n > 200, () -> kind + " had only " + n + " valid policies: " + valid));
    }

    private static String arguments(String kind, Random r) {
        String rate = (1 + r.nextInt(r.nextBoolean() ? 10 : 5000)) + "/" + (r.nextInt(4) == 0 ? "" : 1 + r.nextInt(120))
                + UNITS.get(r.nextInt(UNITS.size()));
        boolean opt = r.nextBoolean();
        return switch (kind) {
            case "token-bucket", "gcra" -> rate + (opt ? " burst=" + r.nextInt(10_000) : "");
            case "leaky-bucket" -> rate + (opt ? " capacity=" + (1 + r.nextInt(10_000)) : "");
            case "shaping" -> rate + (opt ? " slack=" + r.nextInt(50) : "") + (r.nextBoolean() ? " max-delay=" + duration(r) : "");
            case "fixed-window" -> r.nextInt(4) == 0 ? calendar(r)
                    : rate + (opt ? " align=" + (r.nextBoolean() ? "epoch" : "first-request") : "");
            case "sliding-window" -> rate + (opt ? " slots=" + (1 + r.nextInt(100)) : "");
            case "sliding-log" -> rate;
            case "warm-up" -> rate + " warm-up=" + duration(r) + (opt ? " cold-factor=" + (1 + r.nextInt(9)) + "." + r.nextInt(10) : "");
            case "smooth-bursty" -> rate + (opt ? " max-burst=" + duration(r) : "");
            case "concurrency" -> (1 + r.nextInt(1000)) + (opt ? " max-wait=" + duration(r) : "");
            default -> throw new AssertionError(kind);
        };
    }

    /** A calendar window: a unit, maybe a zone, maybe a first day of the week. */
    private static String calendar(Random r) {
        String unit = List.of("day", "week", "month", "year").get(r.nextInt(4));
        return (1 + r.nextInt(100_000)) + "/" + unit
                + (unit.equals("week") && r.nextBoolean() ? " week-start=" + List.of("monday", "sunday", "Saturday").get(r.nextInt(3)) : "")
                + (r.nextBoolean() ? " zone=" + List.of("UTC", "Europe/Paris", "Asia/Kolkata", "+05:30", "Etc/UTC",
                        "America/New_York").get(r.nextInt(6)) : "");
    }

    private static String duration(Random r) {
        return (1 + r.nextInt(3000)) + UNITS.get(r.nextInt(3));
    }

    private static String options(Random r) {
        StringBuilder b = new StringBuilder(" key=").append(KEYS.get(r.nextInt(KEYS.size())));
        if (r.nextBoolean()) {
            b.append(" match=").append(MATCHES.get(r.nextInt(MATCHES.size())));
        }
        if (r.nextInt(4) == 0) {
            b.append(" cost=").append(1 + r.nextInt(3));
        }
        if (r.nextInt(4) == 0) {
            b.append(" status=").append(400 + r.nextInt(200));
        }
        if (r.nextInt(4) == 0) {
            b.append(" allow=").append(r.nextBoolean() ? "10.0.0.0/8,admin" : "2001:db8::/32");
        }
        if (r.nextInt(3) == 0) {
            b.append(" unresolved=").append(List.of("skip", "deny", "deny:401").get(r.nextInt(3)));
        }
        if (r.nextInt(4) == 0) {
            b.append(r.nextBoolean() ? " dry-run" : " dry-run=true");
        }
        return b.toString();
    }
}
