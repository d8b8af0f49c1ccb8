package io.github.sluice.jaxrs;

import io.github.sluice.http.LogText;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.System.Logger.Level;
import java.util.function.Function;

/**
 * Finds the TCP peer's address of a request for {@code key=ip} and allow-lists, and says so once
 * when it cannot (a lookup that answers {@code null}, or a servlet API on the class path of a
 * runtime that is not a servlet container): without it every client shares the key
 * {@code unknown}. Where no address source can exist at all, the feature fails the deployment
 * instead ({@link AddressSource}). The path in that warning is the client's: it is escaped and
 * bounded ({@link LogText#path}). Thread-safe.
 */
final class PeerAddress {

    private static final System.Logger LOG = System.getLogger(SluiceFeature.class.getName());

    private final Function<ContainerRequestContext, String> lookup;
    private final System.Logger log;
    private volatile boolean warned;

    PeerAddress(Function<ContainerRequestContext, String> lookup) {
        this(lookup, LOG);
    }

    /** For tests: warns to {@code log}. */
    PeerAddress(Function<ContainerRequestContext, String> lookup, System.Logger log) {
        this.lookup = lookup;
        this.log = log;
    }

    /** @return the address, or {@code null} if unknown */
    String of(ContainerRequestContext request) {
        String address = lookup.apply(request);
        if (address == null && !warned) {
            warned = true; // a benign race may log twice; never on every request
            log.log(Level.WARNING, "a policy keys clients by address, but the address of a request to ''{0}'' is unknown: "
                    + "run the application in a servlet container, set the request property " + SluiceFeature.PEER_ADDRESS
                    + " in an earlier filter, or give SluiceFeature.builder().peerAddress(...); until then every "
                    + "client shares the key ''unknown'' "
                    + "(see docs/jaxrs.md)", LogText.path(request.getUriInfo().getPath()));
        }
        return address;
    }
}
