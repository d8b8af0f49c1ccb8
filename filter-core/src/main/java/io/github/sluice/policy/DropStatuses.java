package io.github.sluice.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The HTTP statuses that an adaptive policy counts as a <em>drop</em>: a response with one of
 * them tells the policy's algorithm that the server (or what it calls) is overloaded, as a timeout
 * does. The text form is a comma-separated list of statuses ({@code 503}) and classes
 * ({@code 5xx}), or {@code none}; the default is {@code 503,504}: "unavailable" and "gateway
 * timeout" are what an overloaded server or its downstream answer, while a 500 is more often a
 * bug that says nothing about load (counting it would shrink the limit on every fast failure).
 *
 * <p>Immutable and thread-safe; {@link #contains(int)} allocates nothing.
 */
public final class DropStatuses {

    /** The lowest status a set may hold. */
    private static final int FIRST = 100;
    /** One past the highest status a set may hold. */
    private static final int END = 600;

    /** No status is a drop: only timeouts are. */
    public static final DropStatuses NONE = new DropStatuses(new long[(END + 63) / 64]);

    /** The default: {@code 503,504}. */
    public static final DropStatuses DEFAULT = parse("503,504");

    private final long[] bits;

    private DropStatuses(long[] bits) {
        this.bits = bits;
    }

    /**
     * Makes a set of statuses.
     *
     * @param statuses each between 100 and 599
     * @return the set
     * @throws NullPointerException if {@code statuses} is null
     * @throws IllegalArgumentException if a status is out of range
     */
    public static DropStatuses of(int... statuses) {
        long[] bits = new long[NONE.bits.length];
        for (int s : statuses) {
            set(bits, s, Integer.toString(s), "drop");
        }
        return new DropStatuses(bits);
    }

    /**
     * Parses the text form: statuses ({@code 503}) and classes ({@code 5xx}) separated by commas,
     * or {@code none}.
     *
     * @param text e.g. {@code 503,504} or {@code 5xx,429}
     * @return the set
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException naming the item if an item is neither a status between 100
     *     and 599 nor a class {@code 1xx} to {@code 5xx}, or the text is empty
     */
    public static DropStatuses parse(String text) {
        return parse(text, "drop");
    }

    /**
     * Parses the text form for a parameter that takes a set of statuses (e.g. {@code count} and
     * {@code skip} of {@link Charge}), naming it in errors.
     */
    static DropStatuses parse(String text, String parameter) {
        Objects.requireNonNull(text, "text");
        String t = text.strip();
        if (t.equalsIgnoreCase("none")) {
            return NONE;
        }
        long[] bits = new long[(END + 63) / 64];
        for (String raw : t.split(",", -1)) {
            String item = raw.strip();
            if (item.length() == 3 && (item.endsWith("xx") || item.endsWith("XX"))
                    && item.charAt(0) >= '1' && item.charAt(0) <= '5') {
                int base = (item.charAt(0) - '0') * 100;
                for (int s = base; s < base + 100; s++) {
                    set(bits, s, item, parameter);
                }
                continue;
            }
            if (item.length() != 3 || !item.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException(parameter + " must be statuses (503), classes (5xx) separated by "
                        + "commas, or none, but '" + item + "' is neither (in '" + text + "')");
            }
            set(bits, Integer.parseInt(item), item, parameter);
        }
        return new DropStatuses(bits);
    }

    private static void set(long[] bits, int status, String item, String parameter) {
        if (status < FIRST || status >= END) {
            throw new IllegalArgumentException(parameter + " statuses must be between 100 and 599 but was " + item);
        }
        bits[status >>> 6] |= 1L << status;
    }

    /**
     * @param status an HTTP status (any value; those outside 100..599 are never in a set)
     * @return {@code true} if a response with this status counts as a drop
     */
    public boolean contains(int status) {
        return status >= FIRST && status < END && (bits[status >>> 6] & (1L << status)) != 0;
    }

    /** @return {@code true} if no status is a drop */
    public boolean isEmpty() {
        for (long b : bits) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DropStatuses d && Arrays.equals(d.bits, bits);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bits);
    }

    /** @return the text form, classes folded: {@code 503,504}, {@code 5xx}, {@code none} */
    @Override
    public String toString() {
        List<String> items = new ArrayList<>();
        for (int c = 1; c <= 5; c++) {
            boolean whole = true;
            for (int s = c * 100; s < c * 100 + 100 && whole; s++) {
                whole = contains(s);
            }
            if (whole) {
                items.add(c + "xx");
                continue;
            }
            for (int s = c * 100; s < c * 100 + 100; s++) {
                if (contains(s)) {
                    items.add(Integer.toString(s));
                }
            }
        }
        return items.isEmpty() ? "none" : String.join(",", items);
    }
}
