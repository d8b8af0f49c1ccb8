package io.github.sluice.jaxrs;

import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.WriterInterceptor;
import java.util.Map;

/**
 * What every {@link LimitStage} of one feature shares besides the enforcer.
 *
 * @param peerAddress finds the TCP peer's address of a request
 * @param pause how shaped requests wait
 * @param priority the request filters' priority
 * @param servlet the servlet request and response of the current request when the servlet API is
 *     present, for the fields a servlet filter in front wrote; {@code null} without it
 */
record StageSettings(PeerAddress peerAddress, Pause pause, int priority, ServletPeer servlet) {

    /**
     * The priority of each contract: the request filter where configured; the response filter
     * last among response filters (they run in descending order), so no later one can remove a
     * body after the stage chose to release once the body is written; the writer interceptor
     * outermost, so that its {@code finally} sees every failure of the others and of the writer.
     */
    Map<Class<?>, Integer> priorities() {
        return Map.of(ContainerRequestFilter.class, priority,
                ContainerResponseFilter.class, Integer.MIN_VALUE,
                WriterInterceptor.class, Integer.MIN_VALUE);
    }
}
