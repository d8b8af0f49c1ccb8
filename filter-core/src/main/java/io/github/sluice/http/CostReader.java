package io.github.sluice.http;

import io.github.sluice.policy.CostFunction;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.RequestCost;
import io.github.sluice.request.RequestView;
import java.util.Iterator;
import java.util.Map;

/**
 * Reads a request's cost for a policy whose cost comes from the request ({@link RequestCost}),
 * and tells what an entry does with it: charge it, charge the policy's default instead, or refuse
 * the request before the store is asked.
 *
 * <p>A read is a {@code long}: the cost ({@code >= 1}, possibly above every limit), or one of
 * the codes {@link #BAD} and {@link #NO_LENGTH}, which are negative and stay inside this package
 * (an entry turns them into a refusal at once, {@link #refusal}). Reading allocates nothing of its own: a
 * header cost reads the header's lines through {@link RequestView#headers} (two lines are a bad
 * cost, so the second is looked for: the adapter's iterator is the one allocation), a body cost
 * {@code Content-Length} and {@code Transfer-Encoding} through {@link RequestView#header}. Never
 * throws: the request is hostile input, and a {@link CostFunction} that throws yields a bad cost.
 *
 * <p>Stateless and thread-safe.
 */
final class CostReader {

    /** A read: the cost is missing, not one whole number, zero or below, or its function threw. */
    static final long BAD = -1;
    /**
     * A read: a body cost, and the request declares no {@code Content-Length}, or declares a
     * transfer coding beside it (e.g. chunked), which makes the declared length meaningless.
     */
    static final long NO_LENGTH = -2;
    /** The most digits a cost may have: a longer one is above every limit (at most 10^18). */
    private static final int MAX_DIGITS = 18;

    /*
     * Why an entry was refused before the store was asked: a byte in the entry, which fits the
     * entry's padding (an enum reference would not). NONE is 0, the field's default.
     */
    /** Not refused: charged. */
    static final byte NONE = 0;
    /** The cost was bad and the policy has no default: 400. */
    static final byte BAD_COST = 1;
    /** A body cost without a declared length and without a default: 411 Length Required. */
    static final byte NO_LENGTH_GIVEN = 2;
    /** A cost read from the body, above the limit: 413 Content Too Large. */
    static final byte BODY_TOO_LARGE = 3;
    /** Any other cost above the limit: 400. */
    static final byte TOO_COSTLY = 4;

    /**
     * @param refusal one of the refusals above, not {@link #NONE}
     * @return the status of the response
     */
    static int status(byte refusal) {
        return refusal == NO_LENGTH_GIVEN ? 411 : refusal == BODY_TOO_LARGE ? 413 : 400;
    }

    private CostReader() {
    }

    /**
     * @param cost a policy's cost read from the request
     * @param request the request
     * @return the cost, {@code >= 1} (above every limit if it has more than 18 digits), or
     *     {@link #BAD} or {@link #NO_LENGTH}
     */
    static long read(RequestCost cost, RequestView request) {
        switch (cost.source()) {
            case HEADER: {
                Iterator<String> lines = request.headers(cost.name());
                if (!lines.hasNext()) {
                    return BAD;
                }
                String first = lines.next();
                if (lines.hasNext()) {
                    return BAD; // two lines: which one counts is the client's choice, so neither does
                }
                long v = number(first);
                return v == 0 ? BAD : v;
            }
            case BODY: {
                // One line each: a container refuses a request with two Content-Length lines
                // (RFC 9112 6.3), so the first is the only one, read without an iterator.
                String length = request.header("Content-Length");
                if (length == null || request.header("Transfer-Encoding") != null) {
                    // With a transfer coding the body's length is not the declared one (RFC 9112
                    // 6.3: the coding wins): a container that reads the chunks would receive any
                    // size while the client paid for its Content-Length.
                    return NO_LENGTH;
                }
                long n = number(length);
                if (n < 0 || n == Long.MAX_VALUE) {
                    return n;
                }
                long unit = cost.unitBytes();
                // Rounded up without overflow; an empty body still costs one permit. A unit that
                // is a power of two (1KiB, 64KiB, 1MiB) shifts: a long division costs tens of cycles.
                long q = (unit & (unit - 1)) == 0 ? n >>> Long.numberOfTrailingZeros(unit) : n / unit;
                return Math.max(1, q * unit == n ? q : q + 1);
            }
            case BEAN: {
                CostFunction f = cost.function();
                if (f == null) {
                    return BAD; // not bound: the enforcer binds every bean: cost at build
                }
                try {
                    long v = f.cost(request);
                    return v < 1 ? BAD : v;
                } catch (RuntimeException e) {
                    return BAD;
                }
            }
            default:
                return cost.permits();
        }
    }

    /**
     * Parses a field line that must be one whole number: optional spaces and tabs around ASCII
     * digits, nothing else. Leading zeros do not count as digits.
     *
     * @param s the line, or {@code null}
     * @return the number ({@code >= 0}), {@link Long#MAX_VALUE} if it has more than 18
     *     significant digits, or {@link #BAD}
     */
    static long number(String s) {
        if (s == null) {
            return BAD;
        }
        int from = 0;
        int to = s.length();
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        if (from == to) {
            return BAD;
        }
        long v = 0;
        int digits = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return BAD; // a sign, a fraction, a list, another script's digit
            }
            if (digits > 0 || c != '0') {
                digits++;
                if (digits <= MAX_DIGITS) {
                    v = v * 10 + (c - '0'); // at most 18 digits: below Long.MAX_VALUE
                }
            }
        }
        return digits > MAX_DIGITS ? Long.MAX_VALUE : v;
    }

    /**
     * @param how the entry's policy as applied
     * @param read what {@link #read} returned (or a constant cost)
     * @return why the entry is refused before the store, or {@link #NONE} if it is charged
     */
    static byte refusal(Enforcement how, long read) {
        if (read > how.maxCost) {
            return how.bodyCost ? BODY_TOO_LARGE : TOO_COSTLY;
        }
        if (read >= 1 || how.fallback > 0) {
            return NONE;
        }
        return read == NO_LENGTH ? NO_LENGTH_GIVEN : BAD_COST;
    }

    /**
     * @param how the entry's policy as applied
     * @param read what {@link #read} returned (or a constant cost)
     * @return the permits the entry asks for: the read cost, the policy's default for a bad one,
     *     or 0 for a bad one without a default (refused, see {@link #refusal})
     */
    static long charged(Enforcement how, long read) {
        return read >= 1 ? read : how.fallback;
    }

    /**
     * Binds a policy's {@code cost=bean:<name>} to the function registered under that name.
     *
     * @return {@code p} itself if its cost names no function, else a policy with the bound cost
     * @throws IllegalArgumentException naming the policy and the name if none is registered
     */
    static Policy bind(Policy p, Map<String, CostFunction> registered) {
        RequestCost c = p.requestCost();
        if (c.source() != RequestCost.Source.BEAN) {
            return p;
        }
        CostFunction f = registered.get(c.name());
        if (f == null) {
            throw new IllegalArgumentException("cost bean:" + c.name() + " names no registered cost function;"
                    + " register one under '" + c.name() + "' (Enforcer.Builder.costFunction(name, function),"
                    + " or in Spring Boot a CostFunction bean of that name) (policy '" + p.name() + "')");
        }
        return p.toBuilder().cost(c.bind(f)).build();
    }
}
