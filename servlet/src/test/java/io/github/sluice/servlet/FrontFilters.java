package io.github.sluice.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/** Filters that an application may map in front of Sluice, which change the request's async state. */
final class FrontFilters {

    private FrontFilters() {
    }

    /**
     * Puts every request in async mode, runs the rest of the chain in the same dispatch, and
     * completes the request from another thread once the chain has returned or thrown: what a
     * filter does that wants to finish the response itself (a timeout or metrics filter). Owning
     * the async cycle, it answers an exception itself (500): both containers leave an exception
     * thrown out of an async-started dispatch without a response (Tomcat closes the connection,
     * Jetty waits for the async timeout), with or without Sluice.
     */
    static final class StartsAsync implements Filter {
        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
                throws IOException, ServletException {
            if (req.getDispatcherType() != DispatcherType.REQUEST) {
                chain.doFilter(req, res);
                return;
            }
            AsyncContext context = req.startAsync(req, res);
            context.setTimeout(20_000);
            try {
                chain.doFilter(req, res);
            } catch (IOException | ServletException | RuntimeException e) {
                if (!res.isCommitted()) {
                    ((HttpServletResponse) res).sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
                }
            } finally {
                CompletableFuture.runAsync(() -> {
                    try {
                        context.complete();
                    } catch (IllegalStateException over) {
                        // completed, dispatched or timed out already
                    }
                });
            }
        }
    }

    /**
     * Moves every request to an ASYNC dispatch before the rest of the chain runs: Sluice first
     * sees the request in that dispatch.
     */
    static final class Dispatches implements Filter {
        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
                throws IOException, ServletException {
            if (req.getDispatcherType() == DispatcherType.REQUEST) {
                req.startAsync().dispatch();
                return;
            }
            chain.doFilter(req, res);
        }
    }
}
