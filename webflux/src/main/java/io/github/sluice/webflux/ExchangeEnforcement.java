package io.github.sluice.webflux;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import java.security.Principal;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.Fuseable;
import reactor.core.publisher.Mono;

/**
 * One exchange's way through Sluice on a reactive stack, shared by every reactive adapter (the
 * {@link SluiceWebFilter}, {@link RateLimitedWebFilter}, {@link SluiceHandlerFilter}, the Spring
 * Cloud Gateway filter): decide, then deny, or delay and proceed, and end the verdict exactly once.
 *
 * <h2>Per exchange</h2>
 * <ol>
 *   <li>The principal is read from {@link ServerWebExchange#getPrincipal()} (the reactive security
 *       context, when Spring Security runs in front): at once when it is already known (no
 *       security: {@code Mono.empty()}), else by subscribing to it. An anonymous authentication
 *       is no principal, as in a servlet container.
 *   <li>The decision: {@link Enforcer#enforce} on the calling thread when the enforcer
 *       {@linkplain Enforcer#decidesAtOnce() decides at once} (in-memory store), else
 *       {@link Enforcer#enforceAsync}, whose completion resumes the exchange; the event loop is
 *       never blocked. A subscriber that cancels while the decision is pending gets nothing, and
 *       the verdict that arrives later is ended as aborted.
 *   <li>Denied: the status, the rate-limit fields, {@code Retry-After} and the denial body,
 *       written without blocking; the rest of the chain does not run.
 *   <li>Admitted: the rate-limit fields are set on the response before the chain runs (before
 *       anything can commit it); a shaped request waits its delay on a timer
 *       ({@code Mono.delay}), holding no thread.
 *   <li>The verdict ends exactly once, mapped from the reactive signal of the rest of the chain
 *       ({@link Ending}): complete: {@link Verdict#release(int)} with the response's status (200
 *       if none was set); error: {@link Verdict#releaseFailed()}; cancel (the client went away,
 *       during the delay too): {@link Verdict#releaseAborted()}.
 * </ol>
 *
 * <p>The decision is taken when the returned {@code Mono} is subscribed, not when this method is
 * called, so that a pipeline assembled and never run holds nothing. Thread-safe.
 */
public final class ExchangeEnforcement {

    /** Spring Security's anonymous authentication: its name ("anonymousUser") is nobody's key. */
    private static final String ANONYMOUS = "org.springframework.security.authentication.AnonymousAuthenticationToken";

    private final Enforcer enforcer;

    /**
     * Creates the lifecycle for an enforcer.
     *
     * @param enforcer the enforcer; the caller keeps ownership and closes it
     * @throws NullPointerException if {@code enforcer} is null
     */
    public ExchangeEnforcement(Enforcer enforcer) {
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
    }

    /** @return the enforcer */
    public Enforcer enforcer() {
        return enforcer;
    }

    /**
     * Applies the policies to an exchange and runs {@code next} if it is admitted; see the class
     * description.
     *
     * @param exchange the exchange
     * @param selection the policies to apply, from {@link Enforcer#select}, or {@code null} for
     *     every policy whose {@code match} the request meets
     * @param next the rest of the chain, e.g. {@code chain::filter}
     * @return completes when the response is written
     * @throws NullPointerException if {@code exchange} or {@code next} is null
     */
    public Mono<Void> filter(ServerWebExchange exchange, PolicySet selection,
            Function<ServerWebExchange, Mono<Void>> next) {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(next, "next");
        return Mono.defer(() -> decide(exchange, selection, (verdict, view) -> proceed(verdict, view, exchange, next)));
    }

    /**
     * Reads the principal, decides, and hands the verdict to {@code then}, which owns it from
     * then on (it must end it, however it ends, and must not throw).
     */
    <T> Mono<T> decide(ServerWebExchange exchange, PolicySet selection,
            BiFunction<Verdict, ExchangeRequestView, Mono<T>> then) {
        ExchangeRequestView view = new ExchangeRequestView(exchange);
        Mono<Principal> principal = exchange.getPrincipal();
        if (principal instanceof Fuseable.ScalarCallable<?> known) {
            view.principal = nameOf(scalar(known));
            return decide(view, selection, then);
        }
        return principal.doOnNext(p -> view.principal = nameOf(p)).then(Mono.defer(() -> decide(view, selection, then)));
    }

    private <T> Mono<T> decide(ExchangeRequestView view, PolicySet selection,
            BiFunction<Verdict, ExchangeRequestView, Mono<T>> then) {
        Enforcer e = enforcer;
        if (e.decidesAtOnce()) {
            return then.apply(selection == null ? e.enforce(view) : e.enforce(view, selection), view);
        }
        CompletionStage<Verdict> stage = selection == null ? e.enforceAsync(view) : e.enforceAsync(view, selection);
        return settled(stage).flatMap(verdict -> then.apply(verdict, view));
    }

    /**
     * The verdict of a pending decision, for one subscriber. One that cancels first never gets it:
     * the verdict, when it comes, is ended as aborted here (or by the discard hook, if it comes
     * while the cancellation is under way), so its permits are never stranded.
     */
    static Mono<Verdict> settled(CompletionStage<Verdict> stage) {
        return Mono.<Verdict>create(sink -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> cancelled.set(true));
            stage.whenComplete((verdict, failure) -> {
                if (failure != null) {
                    sink.error(failure);
                } else if (cancelled.get()) {
                    verdict.releaseAborted();
                } else {
                    sink.success(verdict);
                }
            });
        }).doOnDiscard(Verdict.class, Verdict::releaseAborted);
    }

    /** Denies, or delays and runs the chain, ending the verdict on the chain's signal. */
    private static Mono<Void> proceed(Verdict verdict, ExchangeRequestView view, ServerWebExchange exchange,
            Function<ServerWebExchange, Mono<Void>> next) {
        if (verdict.denied()) {
            return Denial.write(verdict, view, exchange.getResponse());
        }
        Mono<Void> run;
        try {
            verdict.writeHeaders(view);
            if (verdict.shaped()) {
                // A timer, not a thread: the chain is subscribed when the delay has passed; a cancel
                // before then disposes the timer, and its abort (Ending, below) refunds the place in
                // the schedule, by receipt, since the verdict knows it is still waiting.
                verdict.beginDelay();
                run = Mono.delay(Duration.ofNanos(verdict.delayNanos()))
                        .then(Mono.defer(() -> verdict.endDelay() ? next.apply(exchange) : Mono.<Void>empty()));
            } else {
                run = next.apply(exchange);
                if (verdict.released()) {
                    return run; // nothing held: no ending to map
                }
            }
        } catch (RuntimeException | Error e) {
            verdict.releaseFailed();
            throw e;
        }
        return new Ending(run, verdict, exchange.getResponse());
    }

    private static Object scalar(Fuseable.ScalarCallable<?> known) {
        try {
            return known.call();
        } catch (Exception e) {
            return null; // Mono.error: no principal, as a servlet container without authentication
        }
    }

    /** @return the principal's name, or {@code null} for none or Spring Security's anonymous user */
    static String nameOf(Object principal) {
        if (!(principal instanceof Principal p) || principal.getClass().getName().equals(ANONYMOUS)) {
            return null;
        }
        return p.getName();
    }

    @Override
    public String toString() {
        return "ExchangeEnforcement{" + enforcer + '}';
    }
}
