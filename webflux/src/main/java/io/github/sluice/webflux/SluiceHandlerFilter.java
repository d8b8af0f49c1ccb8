package io.github.sluice.webflux;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import java.time.Duration;
import java.util.Objects;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseCookie;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.server.HandlerFilterFunction;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Applies named Sluice policies to functional routes: the {@link RateLimited} of
 * {@code RouterFunctions}.
 *
 * <pre>{@code
 * RouterFunctions.route(GET("/export"), handler::export)
 *         .filter(SluiceHandlerFilter.of(enforcer, "exports"));
 * }</pre>
 *
 * <p>A denied request gets the denial (status, fields, problem body) and the handler does not run;
 * an admitted one gets its rate-limit fields, waits its delay on a timer if shaped, and runs the
 * handler. Concurrency permits are released exactly once: when the handler's response has been
 * written (with its status), when the handler fails or yields no response, or when the client
 * goes away. Policies are applied regardless of their {@code match}.
 *
 * <p>Thread-safe; immutable.
 */
public final class SluiceHandlerFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

    private final ExchangeEnforcement enforcement;
    private final PolicySet selection;

    private SluiceHandlerFilter(Enforcer enforcer, PolicySet selection) {
        this.enforcement = new ExchangeEnforcement(enforcer);
        this.selection = selection;
    }

    /**
     * A filter applying the named policies, each with its own cost.
     *
     * @param enforcer the enforcer whose policies are named
     * @param policies policy names, at least one
     * @return the filter
     * @throws IllegalArgumentException if a name is unknown or repeated, or none is given
     * @throws NullPointerException if an argument is null
     */
    public static SluiceHandlerFilter of(Enforcer enforcer, String... policies) {
        Objects.requireNonNull(enforcer, "enforcer");
        return new SluiceHandlerFilter(enforcer, enforcer.select(policies));
    }

    /**
     * A filter applying a selection.
     *
     * @param enforcer the enforcer the selection comes from
     * @param selection policies and cost, from {@link Enforcer#select}
     * @return the filter
     * @throws NullPointerException if an argument is null
     */
    public static SluiceHandlerFilter of(Enforcer enforcer, PolicySet selection) {
        Objects.requireNonNull(enforcer, "enforcer");
        return new SluiceHandlerFilter(enforcer, Objects.requireNonNull(selection, "selection"));
    }

    /**
     * Applies the policies, then the handler if admitted; see the class description.
     *
     * @param request the request
     * @param next the handler
     * @return the handler's response, or the denial
     */
    @Override
    public Mono<ServerResponse> filter(ServerRequest request, HandlerFunction<ServerResponse> next) {
        ServerWebExchange exchange = request.exchange();
        return Mono.defer(() -> enforcement.decide(exchange, selection,
                (verdict, view) -> respond(verdict, view, request, next)));
    }

    private static Mono<ServerResponse> respond(Verdict verdict, ExchangeRequestView view, ServerRequest request,
            HandlerFunction<ServerResponse> next) {
        if (verdict.denied()) {
            return Mono.just(new DenialResponse(verdict, view));
        }
        Mono<ServerResponse> run;
        try {
            verdict.writeHeaders(view);
            if (verdict.shaped()) {
                // A cancel during the delay refunds the place in the schedule (doOnCancel below).
                verdict.beginDelay();
                run = Mono.delay(Duration.ofNanos(verdict.delayNanos())).then(Mono.defer(
                        () -> verdict.endDelay() ? next.handle(request) : Mono.<ServerResponse>empty()));
            } else {
                run = next.handle(request);
            }
        } catch (Exception e) {
            verdict.releaseFailed();
            return Mono.error(e);
        }
        if (verdict.released() && !verdict.shaped()) {
            return run; // nothing held
        }
        ServerWebExchange exchange = request.exchange();
        // The response, once there, ends the verdict when it has been written; any other end of
        // the handler (error, cancel, no response) ends it here. Ending twice is a no-op.
        return run.<ServerResponse>map(r -> new Releasing(r, verdict))
                .doOnError(e -> verdict.releaseFailed())
                .doOnCancel(verdict::releaseAborted)
                .switchIfEmpty(Mono.fromRunnable(() -> verdict.release(Ending.status(exchange.getResponse()))));
    }

    @Override
    public String toString() {
        return "SluiceHandlerFilter{" + selection + '}';
    }

    /** The handler's response, ending the verdict when it has been written. */
    private static final class Releasing implements ServerResponse {
        private final ServerResponse delegate;
        private final Verdict verdict;

        Releasing(ServerResponse delegate, Verdict verdict) {
            this.delegate = delegate;
            this.verdict = verdict;
        }

        @Override
        public HttpStatusCode statusCode() {
            return delegate.statusCode();
        }

        /** Spring 6's deprecated twin of {@link #statusCode()} (gone in Spring 7). */
        @Override
        @Deprecated(forRemoval = true)
        @SuppressWarnings("removal")
        public int rawStatusCode() {
            return delegate.statusCode().value();
        }

        @Override
        public HttpHeaders headers() {
            return delegate.headers();
        }

        @Override
        public MultiValueMap<String, ResponseCookie> cookies() {
            return delegate.cookies();
        }

        @Override
        public Mono<Void> writeTo(ServerWebExchange exchange, Context context) {
            Mono<Void> written;
            try {
                written = delegate.writeTo(exchange, context);
            } catch (RuntimeException | Error e) {
                verdict.releaseFailed();
                throw e;
            }
            return new Ending(written, verdict, exchange.getResponse());
        }
    }

    /** The denial, written as the web filter writes it. */
    private static final class DenialResponse implements ServerResponse {
        private final Verdict verdict;
        private final ExchangeRequestView view;

        DenialResponse(Verdict verdict, ExchangeRequestView view) {
            this.verdict = verdict;
            this.view = view;
        }

        @Override
        public HttpStatusCode statusCode() {
            return HttpStatusCode.valueOf(verdict.status());
        }

        /** Spring 6's deprecated twin of {@link #statusCode()} (gone in Spring 7). */
        @Override
        @Deprecated(forRemoval = true)
        @SuppressWarnings("removal")
        public int rawStatusCode() {
            return verdict.status();
        }

        @Override
        public HttpHeaders headers() {
            return new HttpHeaders(); // the fields go to the exchange's response, with the body
        }

        @Override
        public MultiValueMap<String, ResponseCookie> cookies() {
            return new LinkedMultiValueMap<>();
        }

        @Override
        public Mono<Void> writeTo(ServerWebExchange exchange, Context context) {
            return Denial.write(verdict, view, exchange.getResponse());
        }
    }
}
