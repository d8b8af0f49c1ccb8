package io.github.sluice.spring.boot.web;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.AsyncHandlerInterceptor;

/**
 * Applies {@link RateLimited} to Spring MVC handler methods.
 *
 * <p>Per request: the first dispatch of an annotated handler ({@code REQUEST}) is decided against
 * the method's policy selection, resolved at start-up by {@link #resolve}. A denial is written
 * (status, headers, body) and the handler does not run. An admitted request gets its rate-limit
 * headers, and its concurrency permits are released exactly once (the verdict's release is
 * idempotent and thread-safe):
 * <ul>
 *   <li>when the handler returns or throws and the request stayed synchronous
 *       ({@code afterCompletion});
 *   <li>for an asynchronous handler ({@code DeferredResult}, {@code Callable},
 *       {@code CompletableFuture}), when the async request completes, times out or fails (a client
 *       that went away), by an {@link AsyncListener} registered when Spring starts the async
 *       cycle, or when the {@code ASYNC} dispatch that renders the result ends, whichever comes
 *       first. The {@code ASYNC} dispatch is not decided again.
 * </ul>
 *
 * <p>Thread-safe. The per-request path takes no lock: the selections are in a map filled at
 * start-up.
 */
public final class RateLimitedInterceptor implements AsyncHandlerInterceptor {

    /** The request attribute holding the verdict of this request's first dispatch. */
    static final String VERDICT = RateLimitedInterceptor.class.getName() + ".verdict";

    private final Enforcer enforcer;
    /**
     * Each handler method seen: its {@link PolicySet}, or {@link #UNLIMITED} if it has no
     * annotation, so that a request to either costs one lookup.
     */
    private final Map<Method, Object> selections = new ConcurrentHashMap<>();
    private static final Object UNLIMITED = new Object();

    /**
     * Creates the interceptor.
     *
     * @param enforcer the enforcer whose policies the annotations name
     * @throws NullPointerException if {@code enforcer} is null
     */
    public RateLimitedInterceptor(Enforcer enforcer) {
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
    }

    /**
     * Resolves a handler method's {@link RateLimited} selection (the method's annotation, else its
     * class's), once; the start-up calls it for every handler method so that a mistake fails
     * there.
     *
     * @param handler a handler method
     * @return whether the method is rate-limited
     * @throws IllegalStateException if the annotation names an unknown policy, a policy twice, no
     *     policy, or a cost above a named policy's limit; the message names the method
     */
    public boolean resolve(HandlerMethod handler) {
        return selection(handler) != null;
    }

    private PolicySet selection(HandlerMethod handler) {
        Method method = handler.getMethod();
        Object known = selections.get(method);
        if (known == null) {
            known = selections.computeIfAbsent(method, m -> find(handler));
        }
        return known == UNLIMITED ? null : (PolicySet) known;
    }

    private Object find(HandlerMethod handler) {
        Method method = handler.getMethod();
        RateLimited a = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
        if (a == null) {
            a = AnnotatedElementUtils.findMergedAnnotation(handler.getBeanType(), RateLimited.class);
        }
        if (a == null) {
            return UNLIMITED;
        }
        try {
            return enforcer.select(List.of(a.value()), a.cost());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@RateLimited(" + Arrays.toString(a.value()) + (a.cost() == 0 ? ""
                    : ", cost=" + a.cost()) + ") on " + handler.getBeanType().getName() + "."
                    + method.getName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Decides the first dispatch of a request to an annotated handler; see the class description.
     *
     * @return {@code false} if the request was denied (the denial is written)
     */
    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (!(handler instanceof HandlerMethod method) || request.getDispatcherType() != DispatcherType.REQUEST
                || request.getAttribute(VERDICT) != null) {
            return true; // not a handler method, or an ASYNC/ERROR/FORWARD dispatch of a decided request
        }
        PolicySet selection = selection(method);
        if (selection == null) {
            return true;
        }
        MvcRequestView view = new MvcRequestView(request, response);
        Verdict verdict = enforcer.enforce(view, selection);
        if (verdict.denied()) {
            verdict.release(); // a denial holds nothing; this is only belt and braces
            writeDenial(verdict, response, view);
            return false;
        }
        request.setAttribute(VERDICT, verdict);
        verdict.writeHeaders(view);
        return true;
    }

    private static void writeDenial(Verdict verdict, HttpServletResponse response, MvcRequestView view) {
        try {
            response.setStatus(verdict.status());
            verdict.writeDenial(view, body -> response.getOutputStream().write(body));
        } catch (IOException | IllegalStateException gone) {
            // The client went away, or the response was used already: the request is refused either way.
        }
    }

    /** Spring started an async cycle: the permits go back when it ends, however it ends. */
    @Override
    public void afterConcurrentHandlingStarted(HttpServletRequest request, HttpServletResponse response,
            Object handler) {
        if (!(request.getAttribute(VERDICT) instanceof Verdict verdict) || verdict.released()) {
            return;
        }
        try {
            request.getAsyncContext().addListener(new Release(verdict));
        } catch (IllegalStateException over) {
            verdict.release(); // the cycle is over already: nothing would call the listener
        }
    }

    /** The handler returned or threw, or the ASYNC dispatch rendering its result ended. */
    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
            Exception ex) {
        if (request.getAttribute(VERDICT) instanceof Verdict verdict && !request.isAsyncStarted()) {
            verdict.release();
        }
    }

    /** Releases a verdict when its async request ends; follows it into further async cycles. */
    private record Release(Verdict verdict) implements AsyncListener {
        @Override
        public void onComplete(AsyncEvent event) {
            verdict.release();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            verdict.release();
        }

        @Override
        public void onError(AsyncEvent event) {
            verdict.release();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            try {
                event.getAsyncContext().addListener(this);
            } catch (IllegalStateException over) {
                verdict.release();
            }
        }
    }

    @Override
    public String toString() {
        return "RateLimitedInterceptor{" + enforcer + ", " + selections.size() + " handler methods}";
    }
}
