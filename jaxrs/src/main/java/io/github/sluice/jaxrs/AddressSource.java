package io.github.sluice.jaxrs;

import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.RequestView;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.Collections;
import java.util.Iterator;
import java.util.function.Function;

/**
 * Where the feature finds the client's address, decided once per feature: a function the
 * application gave; else, in a servlet container, the servlet request ({@link ServletPeer});
 * and before either, the request property {@value SluiceFeature#PEER_ADDRESS} that an earlier
 * filter may set. When none can exist (no function, no servlet API), a policy that needs the
 * address fails the deployment, instead of every client sharing the key {@code unknown}.
 */
final class AddressSource {

    private static final String SERVLET_REQUEST = "jakarta.servlet.http.HttpServletRequest";

    private AddressSource() {
    }

    /** @return whether the servlet API can be loaded where this module is */
    static boolean servletApiPresent() {
        try {
            Class.forName(SERVLET_REQUEST, false, AddressSource.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** @return the property's value, then the servlet request's remote address */
    static Function<ContainerRequestContext, String> propertyThenServlet(ServletPeer servlet) {
        return request -> {
            Object peer = request.getProperty(SluiceFeature.PEER_ADDRESS);
            return peer != null ? peer.toString() : servlet.address();
        };
    }

    /**
     * @return how the first policy of {@code enforcer} that reads the client's address reads it
     *     ({@code "policy 'per-ip' (key ip)"}), or {@code null} if none does
     */
    static String policyNeedingAddress(Enforcer enforcer) {
        for (Policy p : enforcer.policies()) {
            if (!p.allow().networks().isEmpty()) {
                return "policy '" + p.name() + "' (an allow-list of networks)";
            }
            Probe probe = new Probe();
            try {
                p.key().resolve(probe);
            } catch (RuntimeException e) {
                // A custom resolver that cannot read an empty request: it says nothing about the address.
            }
            if (probe.askedForAddress) {
                return "policy '" + p.name() + "' (key " + p.key() + ")";
            }
        }
        return null;
    }

    /**
     * A request with nothing in it (no header, no principal, no attribute) that records whether
     * a key resolver asked for the address: a fallback chain such as
     * {@code header:X-Api-Key|ip} reaches {@code ip} on it, as it would for a client without the header.
     */
    private static final class Probe implements RequestView {
        boolean askedForAddress;

        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/";
        }

        @Override
        public Iterator<String> headers(String name) {
            return Collections.emptyIterator();
        }

        @Override
        public String peerAddress() {
            askedForAddress = true;
            return "192.0.2.1";
        }

        @Override
        public String principal() {
            return null;
        }

        @Override
        public Object attribute(String name) {
            return null;
        }
    }
}
