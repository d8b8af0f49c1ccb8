package io.github.sluice.policy;

import java.util.Objects;

/**
 * What a policy does with a request whose key cannot be resolved (its {@link
 * io.github.sluice.key.KeyResolver} returns {@code null}: no {@code X-Api-Key} header, no
 * authenticated principal, no request attribute).
 *
 * <ul>
 *   <li>{@link #SKIP} (the default, written {@code unresolved=skip}): the policy does not apply to
 *       the request; other policies still do. It is the behaviour of earlier versions, and the
 *       common pattern of a per-client limit next to a per-address one needs nothing more.
 *   <li>{@link #DENY} ({@code unresolved=deny}): the request is refused with the policy's status,
 *       without consuming anything; {@link #deny(int)} ({@code unresolved=deny:401}) with a status
 *       of its own, e.g. 401 for a missing API key.
 * </ul>
 *
 * Falling back to another key is not an option here but a key chain:
 * {@code key=header:X-Api-Key|ip} keys a request without the header by its address. A chain's key
 * is unresolved only if every element is, which never happens once it ends with {@code ip} or
 * {@code global}; {@code unresolved=} then never applies.
 *
 * <p>Immutable and thread-safe.
 */
public final class Unresolved {

    /** The policy does not apply to a request without a key: the default. */
    public static final Unresolved SKIP = new Unresolved(false, 0);
    /** The request is refused with the policy's own status. */
    public static final Unresolved DENY = new Unresolved(true, 0);

    private final boolean deny;
    private final int status;

    private Unresolved(boolean deny, int status) {
        this.deny = deny;
        this.status = status;
    }

    /**
     * Refuses a request without a key with the given status.
     *
     * @param status 400..599, e.g. 401 for a missing credential
     * @return the choice
     * @throws IllegalArgumentException if the status is out of range
     */
    public static Unresolved deny(int status) {
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("the status of unresolved=deny:<status> must be between 400 and 599 but was "
                    + status);
        }
        return new Unresolved(true, status);
    }

    /**
     * Reads the language's form: {@code skip}, {@code deny} or {@code deny:<status>}.
     *
     * @param text the value of {@code unresolved=}
     * @return the choice
     * @throws NullPointerException if {@code text} is null
     * @throws IllegalArgumentException naming the value and the accepted forms, if invalid
     */
    public static Unresolved parse(String text) {
        Objects.requireNonNull(text, "unresolved");
        if (text.equals("skip")) {
            return SKIP;
        }
        if (text.equals("deny")) {
            return DENY;
        }
        if (text.startsWith("deny:")) {
            String s = text.substring(5);
            if (s.matches("[0-9]{3}")) {
                return deny(Integer.parseInt(s));
            }
        }
        throw new IllegalArgumentException("unresolved must be skip, deny or deny:<status> (e.g. deny:401) but was '"
                + text + "'");
    }

    /** @return {@code true} if a request without a key is refused */
    public boolean denies() {
        return deny;
    }

    /**
     * @param policyStatus the policy's status, for {@link #DENY}
     * @return the status of a refusal: the one given to {@link #deny(int)}, else {@code policyStatus}
     */
    public int status(int policyStatus) {
        return status == 0 ? policyStatus : status;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Unresolved u && u.deny == deny && u.status == status;
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(deny) * 31 + status;
    }

    /** @return the language's form: {@code skip}, {@code deny} or {@code deny:401} */
    @Override
    public String toString() {
        return !deny ? "skip" : status == 0 ? "deny" : "deny:" + status;
    }
}
