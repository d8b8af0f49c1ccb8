package io.github.sluice.http;

import io.github.sluice.key.Cidr;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.PolicyFormat;

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
        return b.toString();
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
