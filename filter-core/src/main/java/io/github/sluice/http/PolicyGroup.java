package io.github.sluice.http;

import io.github.sluice.policy.Policy;
import io.github.sluice.store.KeySpace;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The policies an enforcer may apply to one request: every configured policy (for
 * {@link Enforcer#enforce(io.github.sluice.request.RequestView)}), or the policies of a
 * {@link PolicySet}, with that set's cost. It formats each {@code RateLimit-Policy} value once:
 * the value lists the policies that applied, and which applied is all that varies, so a group of
 * up to {@value #CACHED_MEMBERS} policies keeps one value per subset it has seen. An adaptive
 * policy's {@code q} is its current limit, so a value with one is formatted per request (a
 * single adaptive policy reuses its last value while the limit repeats).
 *
 * <p>Thread-safe: the cache is filled by whichever request first needs a value; two requests
 * that race format equal strings, and either may stay.
 */
final class PolicyGroup {

    /** Groups of at most this many policies cache every subset's value (up to 1,024 strings). */
    static final int CACHED_MEMBERS = 10;

    final Enforcer enforcer;
    /** The policies in force this group was made from. */
    final Enforcer.Table table;
    final Enforcement[] members;
    final RateLimitHeaders.Plan plan;
    /** Indexed by the bit set of the members that applied; {@code null} for a large group. */
    private final AtomicReferenceArray<String> policyFields;
    /*
     * The bits of the cache handed out so far: one per member, then one per plan of a member with
     * plans, while they last (a plan without one, and a contract, is formatted per request).
     * Written only while the constructor runs.
     */
    private int slots;

    /**
     * @param costOverride permits per request for every member, or 0 for each policy's own cost
     */
    PolicyGroup(Enforcer enforcer, Enforcer.Table table, Policy[] policies, KeySpace[] spaces, long costOverride,
            RateLimitHeaders.Plan plan) {
        this.enforcer = enforcer;
        this.table = table;
        this.plan = plan;
        this.members = new Enforcement[policies.length];
        this.slots = policies.length;
        for (int i = 0; i < policies.length; i++) {
            members[i] = new Enforcement(this, policies[i], spaces[i], costOverride, i);
        }
        this.policyFields = members.length <= CACHED_MEMBERS
                ? new AtomicReferenceArray<>(1 << slots) : null;
    }

    /** @return a bit of the cache for a plan's enforcement, or -1 once they are all handed out */
    int claimSlot() {
        return slots < CACHED_MEMBERS ? slots++ : -1;
    }

    /**
     * @param v a verdict of this group with at least one entry
     * @return its {@code RateLimit-Policy} value: every entry, in the verdict's order
     */
    String policyField(Verdict v) {
        Verdict.Entry first = v.first();
        if (v.after(first) == null) {
            return first.how.policyItem(first);
        }
        if (policyFields == null) {
            return join(v);
        }
        int subset = 0;
        for (Verdict.Entry e = first; e != null; e = v.after(e)) {
            if (e.how.adaptive || e.how.position < 0) {
                // An adaptive q is the current limit; a plan's or contract's limit is not one of
                // the group's members: formatted for each request.
                return join(v);
            }
            subset |= 1 << e.how.position;
        }
        String field = policyFields.get(subset);
        if (field == null) {
            field = join(v);
            policyFields.set(subset, field);
        }
        return field;
    }

    private static String join(Verdict v) {
        StringBuilder b = new StringBuilder(64);
        for (Verdict.Entry e = v.first(); e != null; e = v.after(e)) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(e.how.policyItem(e));
        }
        return b.toString();
    }
}
