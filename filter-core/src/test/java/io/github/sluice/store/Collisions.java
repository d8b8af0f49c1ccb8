package io.github.sluice.store;

/**
 * Keys an attacker can compute offline: as many distinct printable strings as wanted whose
 * {@link String#hashCode()} equals a victim key's. Any structure that places or orders keys by a
 * function of {@code String.hashCode} (a shard index, however seeded; a hash map's bin and
 * iteration order) puts them all next to the victim.
 *
 * <p>Construction: the blocks {@code "Aa"} and {@code "BB"} have the same hash code, so every
 * string of {@code m} such blocks has the same hash code {@code h(X)}; a 7-character suffix
 * {@code W} of digits in base 31 is then solved so that {@code h(X + W) == h(victim)} (since
 * {@code 31^7 > 2^32}, every target has such a suffix).
 */
final class Collisions {

    private static final int SUFFIX = 7;

    private final String suffix;
    private final int blocks;

    /**
     * @param victim the key to collide with
     * @param blocks the number of two-character blocks, so {@code 2^blocks} keys are available
     */
    Collisions(String victim, int blocks) {
        this.blocks = blocks;
        int prefixHash = key(0, blocks, "").hashCode();
        int pow = 1;
        for (int i = 0; i < SUFFIX; i++) {
            pow *= 31;
        }
        int zeros = "0".repeat(SUFFIX).hashCode();
        long target = Integer.toUnsignedLong(victim.hashCode() - prefixHash * pow - zeros);
        char[] digits = new char[SUFFIX];
        for (int i = SUFFIX - 1; i >= 0; i--) {
            digits[i] = (char) ('0' + target % 31);
            target /= 31;
        }
        this.suffix = new String(digits);
    }

    /** @return the {@code i}-th key, {@code 0 <= i < 2^blocks}, with the victim's hash code */
    String get(int i) {
        return key(i, blocks, suffix);
    }

    private static String key(int i, int blocks, String suffix) {
        StringBuilder b = new StringBuilder(2 * blocks + suffix.length());
        for (int k = 0; k < blocks; k++) {
            b.append((i >>> k & 1) == 0 ? "Aa" : "BB");
        }
        return b.append(suffix).toString();
    }
}
