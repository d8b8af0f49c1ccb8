package io.github.sluice.bench.micro;

import java.util.SplittableRandom;

/**
 * Client keys for the many-key benchmarks: distinct IPv4 addresses in dotted form (as the IP key
 * resolver produces them), and a Zipf-like sequence of indices into them.
 *
 * <p>Addresses are spread over the whole IPv4 space (a bijective mix of the index), so their
 * lengths are those of real addresses (7 to 15 characters, about 13.8 on average), not the short
 * strings of a counter.
 */
public final class KeyPool {

    private KeyPool() {
    }

    /**
     * The address of key {@code i}: distinct for distinct {@code i < 2^32}.
     *
     * @param i the key's index
     * @return a fresh string such as {@code "203.0.113.7"}
     */
    public static String address(int i) {
        int a = mix(i);
        return (a >>> 24) + "." + ((a >>> 16) & 255) + "." + ((a >>> 8) & 255) + "." + (a & 255);
    }

    /** A bijection on 32-bit integers (multiplication by an odd constant, xor-shifts). */
    private static int mix(int x) {
        x *= 0x9E3779B1;
        x ^= x >>> 15;
        x *= 0x85EBCA77;
        x ^= x >>> 13;
        return x;
    }

    /**
     * @param n how many
     * @return the addresses of keys {@code 0..n-1}
     */
    public static String[] addresses(int n) {
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = address(i);
        }
        return keys;
    }

    /**
     * A Zipf-distributed sequence (exponent {@code s}) over {@code n} keys, with ranks assigned to
     * keys at random so that the hot keys are scattered through the table, not inserted first.
     *
     * @param n number of keys
     * @param s the Zipf exponent (1.0 is the classic web-traffic skew)
     * @param length the sequence length, a power of two
     * @param seed the random seed
     * @return indices in {@code [0, n)}
     */
    public static int[] zipf(int n, double s, int length, long seed) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1.0 / Math.pow(k + 1, s);
            cdf[k] = sum;
        }
        SplittableRandom random = new SplittableRandom(seed);
        int[] keyOfRank = new int[n];
        for (int k = 0; k < n; k++) {
            keyOfRank[k] = k;
        }
        for (int k = n - 1; k > 0; k--) {
            int j = random.nextInt(k + 1);
            int t = keyOfRank[k];
            keyOfRank[k] = keyOfRank[j];
            keyOfRank[j] = t;
        }
        int[] seq = new int[length];
        for (int i = 0; i < length; i++) {
            double u = random.nextDouble() * sum;
            int lo = 0;
            int hi = n - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cdf[mid] < u) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            seq[i] = keyOfRank[lo];
        }
        return seq;
    }
}
