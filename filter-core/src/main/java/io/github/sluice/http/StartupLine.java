package io.github.sluice.http;

import io.github.sluice.key.Cidr;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.PolicyFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * The one line that describes an enforcer at start-up: its policies in the policy language, how
 * headers are written, who is trusted to forward the client's address, which methods are exempt,
 * and the store. For example:
 * <pre>
 * Sluice enforcer: policies [per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*;
 * login = fixed-window 5/1m key=ip match=POST:/login]; headers draft; trusted proxies none
 * (the TCP peer is the client); exempt methods [OPTIONS]; store ShardedRegistry{...}
 * </pre>
 * (on one line). Holds no key and no secret: safe at {@code INFO}.
 *
 * <p>It ends with a {@code WARNING:} for each choice a client makes through a header it writes
 * itself: a partition (any client could claim the paid share), an allow-list exemption on a
 * policy keyed by a header (any client that learns an exempt key bypasses the limit), or a cost
 * read from a header ({@code cost=header:X-Cost}: any client can claim the cheapest cost). For example
 * {@code ; WARNING: policy 'tier' partition chosen by client-writable header X-Tier: any client can
 * claim any partition's share; choose it from authentication (see docs/security.md)}.
 */
final class StartupLine {

    private StartupLine() {
    }

    static String describe(Enforcer enforcer) {
        StringBuilder b = new StringBuilder(256).append("Sluice enforcer: policies [");
        boolean first = true;
        for (Policy p : enforcer.policyArray()) {
            b.append(first ? "" : "; ").append(PolicyFormat.format(p));
            first = false;
        }
        b.append("]; headers ").append(headers(enforcer.headerOptions()));
        b.append("; trusted proxies ").append(proxies(enforcer.clientAddress()));
        b.append("; exempt methods ").append(enforcer.exemptMethods());
        b.append("; store ").append(enforcer.store());
        for (String w : warnings(enforcer)) {
            b.append("; WARNING: ").append(w);
        }
        return b.toString();
    }

    /**
     * The choices a client makes through a request header it writes itself, one sentence each:
     * a policy's partition read from a header ({@code partition=header:X-Tier}), and allow-listed
     * keys on a policy keyed by a header. Empty for a configuration without them.
     */
    static List<String> warnings(Enforcer enforcer) {
        List<String> w = new ArrayList<>();
        for (Policy p : enforcer.policyArray()) {
            if (p.partition() != null) {
                for (String h : KeyResolvers.clientHeaders(p.partition())) {
                    w.add("policy '" + p.name() + "' partition chosen by client-writable header " + h
                            + ": any client can claim any partition's share; choose it from authentication"
                            + " (attribute:, bean:) or a header your proxy overwrites (see docs/security.md)");
                }
            }
            if (p.plans() != null && p.plans().resolver() != null) {
                for (String h : KeyResolvers.clientHeaders(p.plans().resolver())) {
                    w.add("policy '" + p.name() + "' plan chosen by client-writable header " + h
                            + ": any client can claim any plan (the default plan decides only unknown names);"
                            + " choose it from authentication (attribute:, bean:) or a header your proxy"
                            + " overwrites (see docs/security.md)");
                }
            }
            if (p.requestCost().source() == io.github.sluice.policy.RequestCost.Source.HEADER) {
                w.add("policy '" + p.name() + "' cost chosen by client-writable header " + p.requestCost().name()
                        + ": a client can always claim the cheapest cost, 1; read it from a header your proxy"
                        + " overwrites, or use cost=body or cost=bean: (see docs/security.md)");
            }
            if (!p.allow().keys().isEmpty()) {
                for (String h : KeyResolvers.clientHeaders(p.key())) {
                    w.add("policy '" + p.name() + "' exempts allow-listed keys read from client-writable header " + h
                            + ": any client that sends one is not limited, so they must be secrets the application"
                            + " checks (see docs/security.md)");
                }
            }
        }
        return w;
    }

    private static String headers(HeaderOptions h) {
        return h.style().configName()
                + (h.onlyOnDenial() ? " on denials only" : "")
                + (h.exposeHeaders() ? ", exposed to browsers" : "")
                + (h.degradedHeader() == null ? "" : ", degraded header " + h.degradedHeader());
    }

    private static String proxies(ClientAddress a) {
        if (a.trustedProxies().isEmpty()) {
            return "none (the TCP peer is the client)";
        }
        StringBuilder b = new StringBuilder();
        for (Cidr c : a.trustedProxies()) {
            b.append(b.length() == 0 ? "" : ",").append(c);
        }
        return b + " via " + a.header().headerName() + ", IPv6 clients grouped by /" + a.ipv6Prefix();
    }
}
