package io.github.sluice.spring.boot.web;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import io.github.sluice.servlet.PermitRelease;
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
 * <p>Per request: the first dispatch of an annotated handler that reaches this interceptor is
 * decided against the method's policy selection, resolved at start-up by {@link #resolve}: the
 * {@code REQUEST} dispatch, or the {@code ASYNC} dispatch a filter in front moved the request to.
 * A later dispatch of a decided request (the {@code ASYNC} dispatch that renders an async result,
 * a forward, an error dispatch) is not decided again: the verdict is kept in a request attribute.
 * A denial is written (status, headers, body) and the handler does not run. An admitted request
 * gets its rate-limit headers.
 *
 * <h2>Releasing the permits</h2>
 * An admitted request's concurrency permits are released exactly once, by the servlet filter's own
 * mechanism ({@link PermitRelease}), mapped onto Spring MVC's two ends of a dispatch:
 * <ul>
 *   <li>{@code afterCompletion} (the handler returned or threw and Spring did not start an async
 *       cycle; or the {@code ASYNC} dispatch that renders an async result ended): released now,
 *       with the response's status (an exception Spring did not resolve counts as a failure),
 *       unless the request is in async mode, started by the handler itself
 *       ({@code request.startAsync()}) or by a filter in front; then when that async request
 *       completes, fails or times out;
 *   <li>{@code afterConcurrentHandlingStarted} (the handler returned {@code DeferredResult},
 *       {@code Callable}, {@code WebAsyncTask}, {@code CompletableFuture},
 *       {@code StreamingResponseBody}, {@code ResponseBodyEmitter}, {@code SseEmitter}, ...):
 *       when the async request completes, times out (a drop for adaptive policies) or fails (a
 *       client that went away), or when the {@code ASYNC} dispatch that renders the result ends,
 *       whichever comes first.
 * </ul>
 * The verdict's release is idempotent and thread-safe, so the several ends of one request give
 * its permits back once.
 *
 * <p>Thread-safe. The per-request path takes no lock: the selections are in a map filled at
 * start-up.
 */
public final class RateLimitedInterceptor implements AsyncHandlerInterceptor {

    /**
     * The request attribute holding the verdict of this request's first decided dispatch (a
     * denial's too), so that a later dispatch of the request is not decided again.
     */
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
        if (!(handler instanceof HandlerMethod method) || !decides(request.getDispatcherType())
                || request.getAttribute(VERDICT) != null) {
            return true; // not a handler method, a forward/include/error dispatch, or decided already
        }
        PolicySet selection = selection(method);
        if (selection == null) {
            return true;
        }
        MvcRequestView view = new MvcRequestView(request, response);
        Verdict verdict = enforcer.enforce(view, selection);
        request.setAttribute(VERDICT, verdict);
        if (verdict.denied()) {
            writeDenial(verdict, response, view);
            return false;
        }
        verdict.writeHeaders(view);
        if (verdict.shaped()) {
            // A shaping policy's delay: an interceptor cannot suspend the request, so it waits on
            // this thread (bounded by the policy's max-delay), as the servlet filter's blocking
            // mode and the JAX-RS filter do. Skipping it would let a shaped request through early.
            try {
                java.util.concurrent.TimeUnit.NANOSECONDS.sleep(verdict.delayNanos());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // admitted: proceed, and keep the flag for the caller
            }
        }
        return true;
    }

    /**
     * A request is decided in its {@code REQUEST} dispatch, or in an {@code ASYNC} dispatch if a
     * filter in front moved it there before the {@code DispatcherServlet} saw it; never in a
     * forward, include or error dispatch, which belong to a dispatch that was decided (a request
     * the interceptor never saw before is not limited there, as the servlet filter does).
     */
    private static boolean decides(DispatcherType type) {
        return type == DispatcherType.REQUEST || type == DispatcherType.ASYNC;
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
        if (request.getAttribute(VERDICT) instanceof Verdict verdict) {
            PermitRelease.whenComplete(request, response, verdict, false);
        }
    }

    /**
     * The handler returned or threw, or the {@code ASYNC} dispatch rendering its result ended: the
     * permits go back now, or, if the request is in async mode (the handler or a filter in front
     * started it), when it ends. A forward or include ends inside a dispatch that releases when it
     * ends itself, and an error dispatch follows one that has released already (or whose async
     * listener does): neither releases, so that nothing is given back while the response is still
     * being written.
     */
    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
            Exception ex) {
        if (decides(request.getDispatcherType()) && request.getAttribute(VERDICT) instanceof Verdict verdict) {
            PermitRelease.whenComplete(request, response, verdict, ex != null);
        }
    }

    @Override
    public String toString() {
        return "RateLimitedInterceptor{" + enforcer + ", " + selections.size() + " handler methods}";
    }
}
