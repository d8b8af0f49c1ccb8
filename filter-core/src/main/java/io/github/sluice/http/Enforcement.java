package io.github.sluice.http;

import io.github.sluice.policy.Policy;
import io.github.sluice.store.KeySpace;

/**
 * One policy as a {@link PolicyGroup} applies it: the policy, its key space, the permits a request
 * asks for, its place in the group, and the header text that never changes between requests,
 * formatted once.
 *
 * <p>Immutable apart from {@link #denialText}'s cache; thread-safe.
 */
final class Enforcement {

    final PolicyGroup group;
    final Policy policy;
    final KeySpace space;
    /** Permits per request: the policy's own cost, or a {@link PolicySet}'s override. */
    final long cost;
    /** The index in {@link PolicyGroup#members}; a bit of the group's policy-field cache. */
    final int position;
    final boolean dryRun;
    final boolean concurrency;
    /** The name as an RFC 9651 sf-string, quotes included. */
    final String name;
    /** This policy's member of {@code RateLimit-Policy}, e.g. {@code "per-ip";q=100;w=60}. */
    final String policyItem;
    /** The start of this policy's member of {@code RateLimit}, e.g. {@code "per-ip";r=}. */
    final String limitPrefix;
    /*
     * The header values of this policy's last one-policy denial. A flood on one key is denied with
     * the same remaining and t for a second at a time, so its denials reuse these strings instead
     * of formatting them again. Written without synchronisation: the object is immutable (final
     * fields), so a thread sees either an older complete one or a newer complete one.
     */
    private DenialText lastDenial;

    Enforcement(PolicyGroup group, Policy policy, KeySpace space, long cost, int position) {
        this.group = group;
        this.policy = policy;
        this.space = space;
        this.cost = cost;
        this.position = position;
        this.dryRun = policy.dryRun();
        this.concurrency = policy.concurrency();
        this.name = RateLimitHeaders.sfString(policy.name());
        this.policyItem = RateLimitHeaders.policyItem(policy);
        this.limitPrefix = name + ";r=";
    }

    /**
     * @param remaining the clamped {@code r}
     * @param seconds the clamped {@code t}
     * @param retryAfter the {@code Retry-After} seconds
     * @return the header values of a one-policy denial with these numbers
     */
    DenialText denialText(long remaining, long seconds, long retryAfter) {
        DenialText d = lastDenial;
        if (d == null || d.remaining != remaining || d.seconds != seconds || d.retryAfter != retryAfter) {
            d = new DenialText(remaining, seconds, retryAfter,
                    RateLimitHeaders.limitItem(this, remaining, seconds), Long.toString(retryAfter));
            lastDenial = d;
        }
        return d;
    }

    /** The header values of one denial; immutable. */
    static final class DenialText {
        final long remaining;
        final long seconds;
        final long retryAfter;
        final String limit;
        final String retryAfterValue;

        DenialText(long remaining, long seconds, long retryAfter, String limit, String retryAfterValue) {
            this.remaining = remaining;
            this.seconds = seconds;
            this.retryAfter = retryAfter;
            this.limit = limit;
            this.retryAfterValue = retryAfterValue;
        }
    }

    @Override
    public String toString() {
        return policy.name() + (cost == policy.cost() ? "" : "{cost=" + cost + '}');
    }
}
