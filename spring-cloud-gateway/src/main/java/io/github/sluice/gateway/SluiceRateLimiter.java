package io.github.sluice.gateway;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import io.github.sluice.policy.Policy;
import io.github.sluice.request.HeaderSink;
import io.github.sluice.request.RequestView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

/**
 * A {@code RateLimiter} for the gateway's own {@code RequestRateLimiter} filter, deciding with
 * Sluice policies where {@code RedisRateLimiter} would use its token bucket:
 *
 * <pre>{@code
 * filters:
 *   - name: RequestRateLimiter
 *     args:
 *       rate-limiter: "#{@sluiceRateLimiter}"
 *       key-resolver: "#{@apiKeyResolver}"
 *       sluice-rate-limiter.policy: gateway-api
 * }</pre>
 *
 * <p>The gateway's {@code KeyResolver} gives the key; the named policies must read it from the
 * attribute {@value #KEY_ATTRIBUTE} ({@code key=attribute:gateway-key}), and must be rate limits:
 * a concurrency or adaptive policy holds permits until the response completes, which a
 * {@code RateLimiter} never sees (use the {@code Sluice} filter for those). Either mistake fails
 * the route's construction, naming the route and the policy. An allowed request carries the
 * rate-limit fields; a denied one gets them with {@code Retry-After}, and the filter's status
 * ({@code status-code}, 429 by default; the filter writes no body). A shaped request is answered
 * after its delay, on a timer. When the store fails, Sluice's failure policy decides
 * ({@code docs/redis.md}), not a silent pass. Thread-safe.
 */
public class SluiceRateLimiter extends AbstractRateLimiter<SluiceRateLimiter.Config> {

    /** The prefix of this limiter's route arguments: {@code sluice-rate-limiter.policy}. */
    public static final String CONFIGURATION_PROPERTY_NAME = "sluice-rate-limiter";

    /** The attribute the gateway's key is under, for the policies' {@code key=attribute:gateway-key}. */
    public static final String KEY_ATTRIBUTE = "gateway-key";

    private final Enforcer enforcer;
    /** Each route's selection, checked once. */
    private final Map<String, PolicySet> selections = new ConcurrentHashMap<>();

    /**
     * Creates the limiter.
     *
     * @param enforcer the enforcer whose policies routes name; the caller closes it
     * @param configurationService the gateway's binder of route arguments
     * @throws NullPointerException if {@code enforcer} is null
     */
    public SluiceRateLimiter(Enforcer enforcer, ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
    }

    /**
     * Binds a route's arguments and checks them at once, so that a mistake fails the route's
     * construction rather than its first request.
     *
     * @param event the route's filter arguments
     */
    @Override
    public void onApplicationEvent(FilterArgsEvent event) {
        super.onApplicationEvent(event);
        Config c = getConfig().get(event.getRouteId());
        if (c != null) {
            selections.remove(event.getRouteId());
            selection(event.getRouteId(), c);
        }
    }

    /**
     * Decides one request of a route for the key the gateway's {@code KeyResolver} gave.
     *
     * @param routeId the route
     * @param id the key
     * @return the answer and the rate-limit fields
     * @throws IllegalArgumentException if the route has no {@code sluice-rate-limiter.policy}
     */
    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config c = getConfig().get(routeId);
        if (c == null) {
            return Mono.error(new IllegalArgumentException("route '" + routeId + "': RequestRateLimiter with the Sluice"
                    + " rate limiter needs the argument " + CONFIGURATION_PROPERTY_NAME + ".policy"));
        }
        PolicySet selection = selection(routeId, c);
        KeyView view = new KeyView(id);
        if (enforcer.decidesAtOnce()) {
            return respond(enforcer.enforce(view, selection));
        }
        return Mono.fromCompletionStage(() -> enforcer.enforceAsync(view, selection)).flatMap(SluiceRateLimiter::respond);
    }

    private static Mono<Response> respond(Verdict verdict) {
        Map<String, String> fields = new LinkedHashMap<>();
        verdict.writeHeaders(fields::put);
        Response response = new Response(verdict.admitted(), fields);
        if (!verdict.shaped()) {
            return Mono.just(response);
        }
        // A request that goes away during its delay gives its place in the schedule back.
        verdict.beginDelay();
        return Mono.delay(Duration.ofNanos(verdict.delayNanos())).map(t -> {
            verdict.endDelay();
            return response;
        }).doOnCancel(verdict::releaseAborted);
    }

    private PolicySet selection(String routeId, Config c) {
        PolicySet known = selections.get(routeId);
        return known != null ? known : selections.computeIfAbsent(routeId, r -> check(r, c));
    }

    private PolicySet check(String routeId, Config c) {
        String names = c.getPolicy();
        if (names == null || names.isBlank()) {
            throw new IllegalArgumentException("route '" + routeId + "': " + CONFIGURATION_PROPERTY_NAME
                    + ".policy must name the Sluice policies to apply");
        }
        List<String> list = new ArrayList<>();
        for (String n : names.split(",")) {
            list.add(n.strip());
        }
        PolicySet selection;
        try {
            selection = enforcer.select(list, c.getCost());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("route '" + routeId + "': " + CONFIGURATION_PROPERTY_NAME + ".policy '"
                    + names + "': " + e.getMessage(), e);
        }
        KeyView probe = new KeyView("probe");
        for (Policy p : enforcer.policies()) {
            if (!list.contains(p.name())) {
                continue;
            }
            if (p.concurrency()) {
                throw new IllegalArgumentException("route '" + routeId + "': policy '" + p.name() + "' holds permits"
                        + " until the response completes, which a RateLimiter never sees; apply it with the Sluice"
                        + " gateway filter instead");
            }
            if (!"probe".equals(p.key().resolve(probe))) {
                throw new IllegalArgumentException("route '" + routeId + "': policy '" + p.name() + "' is keyed "
                        + p.key() + ", but RequestRateLimiter's KeyResolver gives the key: write key=attribute:"
                        + KEY_ATTRIBUTE);
            }
        }
        return selection;
    }

    @Override
    public String toString() {
        return "SluiceRateLimiter{" + enforcer + '}';
    }

    /** The route's arguments under {@value #CONFIGURATION_PROPERTY_NAME}. */
    public static class Config {
        private String policy;
        private long cost;

        /** Creates empty arguments; the gateway binds them. */
        public Config() {
        }

        /** @return the policy names, comma-separated */
        public String getPolicy() {
            return policy;
        }

        /**
         * @param policy the policy names, comma-separated
         * @return these arguments
         */
        public Config setPolicy(String policy) {
            this.policy = policy;
            return this;
        }

        /** @return the permits one request takes (like RedisRateLimiter's requestedTokens), 0 for each policy's own */
        public long getCost() {
            return cost;
        }

        /**
         * @param cost the permits one request takes; 0 for each policy's own cost
         * @return these arguments
         */
        public Config setCost(long cost) {
            this.cost = cost;
            return this;
        }

        @Override
        public String toString() {
            return "Config{policy=" + policy + ", cost=" + cost + '}';
        }
    }

    /** The request as a RateLimiter knows it: only its key, under {@value #KEY_ATTRIBUTE}. */
    private record KeyView(String key) implements RequestView, HeaderSink {
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
            return null;
        }

        @Override
        public String principal() {
            return null;
        }

        @Override
        public Object attribute(String name) {
            return KEY_ATTRIBUTE.equals(name) ? key : null;
        }

        @Override
        public void header(String name, String value) {
            // not a sink: the fields go to the Response's map
        }
    }
}
