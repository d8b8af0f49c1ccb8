package io.github.sluice.spring.boot;

import io.github.sluice.config.SluiceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The names of the starter's properties, and the nearest of them to a misspelt one, for the
 * messages of {@link SluiceSettingsCheck}. Which names bind is Boot's binder's to say; these are
 * what a message proposes.
 *
 * <p>Stateless and thread-safe; meant for error messages, not for hot paths.
 */
final class SluicePropertyNames {

    private SluicePropertyNames() {
    }

    /** Every property the starter binds, for messages. */
    static List<String> known() {
        TreeSet<String> names = new TreeSet<>();
        for (String s : SluiceConfig.SETTINGS) {
            names.add(SluiceProperties.PREFIX + "." + (s.equals("policies") ? "policies.<name>" : s));
        }
        names.addAll(List.of("sluice.enabled", "sluice.filter.enabled", "sluice.filter.order",
                "sluice.filter.url-patterns", "sluice.filter.shaping", "sluice.redis.url",
                "sluice.plans.<policy>.<plan>"));
        return new ArrayList<>(names);
    }

    /**
     * The known property nearest to an unknown name, if near enough to be a slip: a few typed
     * characters off (one edit for short names, two from 6 characters, three from 12; the
     * {@code policies} element is compared alone and keeps the policy's name).
     *
     * @param name the unknown name, e.g. {@code sluice.polices.per-ip}
     * @return e.g. {@code sluice.policies.per-ip}, or {@code null}
     */
    static String nearest(String name) {
        String rest = name.substring(SluiceProperties.PREFIX.length() + 1).toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int dot = rest.indexOf('.');
        if (dot > 0 && dot < rest.length() - 1) {
            // "policy" (the init-param spelling) is three edits from "policies".
            int d = distance(rest.substring(0, dot), "policies");
            if (d <= 3) {
                best = "sluice.policies." + rest.substring(dot + 1);
                bestDistance = d;
            }
        }
        for (String k : known()) {
            String candidate = k.substring(SluiceProperties.PREFIX.length() + 1);
            if (candidate.endsWith("<name>")) {
                continue;
            }
            int allowed = candidate.length() >= 12 ? 3 : candidate.length() >= 6 ? 2 : 1;
            int d = distance(rest, candidate);
            if (d <= allowed && d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Optimal string alignment distance: Levenshtein plus swaps of adjacent characters. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

}
