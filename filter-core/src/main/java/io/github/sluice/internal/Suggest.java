package io.github.sluice.internal;

import java.util.Locale;

/**
 * "Did you mean" for misspelt names: the known name nearest to what was written, if it is near
 * enough to be a slip (a case difference, or a few typed characters: an insertion, deletion,
 * substitution or swap of two neighbours per edit).
 *
 * <p>Stateless and thread-safe; meant for error messages, not for hot paths.
 */
public final class Suggest {

    private Suggest() {
    }

    /**
     * Finds the known name nearest to a word.
     *
     * @param word what was written
     * @param known the names that would have been understood
     * @return the nearest known name, or {@code null} if none is a likely slip
     */
    public static String nearest(String word, Iterable<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String lower = word.toLowerCase(Locale.ROOT);
        for (String k : known) {
            if (k.equals(word)) {
                continue;
            }
            int d = k.toLowerCase(Locale.ROOT).equals(lower) ? 0 : distance(lower, k.toLowerCase(Locale.ROOT));
            if (d <= allowed(k) && d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best;
    }

    /**
     * Formats {@link #nearest} for a message.
     *
     * @param word what was written
     * @param known the names that would have been understood
     * @return {@code "; did you mean 'x'?"}, or the empty string
     */
    public static String didYouMean(String word, Iterable<String> known) {
        String n = nearest(word, known);
        return n == null ? "" : "; did you mean '" + n + "'?";
    }

    /** Edits tolerated: one for short names, two from 6 characters, three from 12. */
    private static int allowed(String known) {
        return known.length() >= 12 ? 3 : known.length() >= 6 ? 2 : 1;
    }

    /** Optimal string alignment distance: Levenshtein plus swaps of adjacent characters. */
    static int distance(String a, String b) {
        int n = a.length();
        int m = b.length();
        if (Math.abs(n - m) > 3) {
            return Integer.MAX_VALUE;
        }
        int[][] d = new int[n + 1][m + 1];
        for (int i = 0; i <= n; i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= m; j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= n; i++) {
            for (int j = 1; j <= m; j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[n][m];
    }
}
