package io.github.sluice.jaxrs;

import io.github.sluice.http.LogText;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.lang.System.Logger.Level;

/**
 * The {@code ExceptionMapper<Throwable>} that JAX-RS 3.1 requires of every runtime, for the
 * runtimes before it, which have none: Jersey 2 and 3.0, and the javax build of this module.
 *
 * <p>Why Sluice needs it: without a mapper, an exception nobody maps (thrown by a resource or a
 * later filter, or given to {@code AsyncResponse.resume}) goes to the container without passing
 * the response filters, so the concurrency permits of that request would never come back and its
 * entry in {@link InFlight} would stay forever. With it, such an exception becomes a response like
 * any other, whose response filter releases.
 *
 * <p>It answers what the 3.1 default does: a {@link WebApplicationException}'s own response, else
 * 500 with no body (the container then writes its error page for 500), and it logs the exception at
 * {@code WARNING}, since the container no longer sees it, with its messages escaped
 * ({@link LogText#escape(Throwable)}: they may quote the request). Registered with the lowest
 * priority, so that an {@code ExceptionMapper<Throwable>} of the application's own, registered before or after
 * the feature, is chosen over it unless it too has the lowest priority ({@code Integer.MAX_VALUE});
 * mappers of narrower types are chosen first anyway. Stateless and thread-safe.
 */
final class UnmappedExceptions implements ExceptionMapper<Throwable> {

    /** The priority it is registered with: the lowest, so that an application's own mapper wins. */
    static final int PRIORITY = Integer.MAX_VALUE;

    private static final System.Logger LOG = System.getLogger(SluiceFeature.class.getName());

    private final System.Logger log;

    UnmappedExceptions() {
        this(LOG);
    }

    /** For tests: logs to {@code log}. */
    UnmappedExceptions(System.Logger log) {
        this.log = log;
    }

    /**
     * The API marker of JAX-RS 3.1: {@code SeBootstrap} came with the release that made a default
     * exception mapper mandatory, so a runtime whose API has it maps every exception itself.
     */
    private static final String JAX_RS_31_MARKER = "jakarta.ws.rs.SeBootstrap";

    /**
     * Tells whether the runtime lacks a default exception mapper, i.e. implements an API before
     * JAX-RS 3.1.
     *
     * @return {@code true} if the feature must register this mapper
     */
    static boolean needed() {
        try {
            Class.forName(JAX_RS_31_MARKER, false, Feature.class.getClassLoader());
            return false;
        } catch (ClassNotFoundException | LinkageError before31) {
            return true;
        }
    }

    @Override
    public Response toResponse(Throwable exception) {
        if (exception instanceof WebApplicationException wae && wae.getResponse() != null) {
            return wae.getResponse();
        }
        // The message may quote the request (an id, a query value): escaped as every log line's client text.
        log.log(Level.WARNING, "an exception nobody maps ends the request with 500 (Sluice maps it as JAX-RS 3.1 does, "
                + "so that the request's permits are released; map it yourself to answer otherwise)",
                LogText.escape(exception));
        return Response.serverError().build();
    }
}
