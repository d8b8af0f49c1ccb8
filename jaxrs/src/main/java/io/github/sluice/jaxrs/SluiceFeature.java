package io.github.sluice.jaxrs;

import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.Match;
import io.github.sluice.policy.Policy;
import jakarta.ws.rs.ConstrainedTo;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.util.Objects;
import java.util.function.Function;

/**
 * Installs Sluice in a JAX-RS application: register it as a provider, or let the runtime discover
 * it through {@link Provider @Provider} scanning.
 *
 * <pre>{@code
 * Enforcer enforcer = Enforcer.builder()
 *         .policies("per-ip = token-bucket 100/1m key=ip match=/api/*")
 *         .build();
 * resourceConfig.register(new SluiceFeature(enforcer));
 * }</pre>
 *
 * <p>It installs two stages:
 * <ul>
 *   <li>a {@code @PreMatching} request filter that applies the policies whose {@code match} fits
 *       the request's method and path (installed only if some policy has a match other than
 *       {@code none}, or the policies come from a watched file);
 *   <li>for each resource method annotated {@link RateLimited} (directly or through its class),
 *       a filter applying the named policies, resolved once at deployment.
 * </ul>
 * A denial aborts the request with the policy's status (429 by default), {@code Retry-After},
 * the rate-limit header fields and a problem body; an admitted response gets the header fields,
 * one line of each name listing the policies of both stages and of a Sluice servlet filter in
 * front, if any (docs/configuration.md, "Two layers on one request"); concurrency permits are given back once the response is written, on every path. On a runtime
 * older than JAX-RS 3.1 (Jersey 2, the javax build of this module), the feature also registers,
 * at the lowest priority, the {@code ExceptionMapper<Throwable>} that 3.1 requires (500, or a
 * {@code WebApplicationException}'s own response), because without one an exception nobody maps
 * skips the response filters that release the permits.
 *
 * <p>Without an {@link Enforcer}, the feature builds one from the application's configuration
 * properties (in a servlet container, the JAX-RS servlet's init-params): every
 * {@link io.github.sluice.config.SluiceConfig} setting with the prefix {@value #PREFIX}, e.g.
 * {@code sluice.policies}, {@code sluice.config}, {@code sluice.headers}; a {@link
 * io.github.sluice.store.Store} instance under {@value #STORE}; or a whole enforcer under
 * {@value #ENFORCER}. An invalid setting fails the deployment. When {@code sluice.config} names a
 * properties file on the file system, the feature watches it as the servlet filter does
 * ({@link io.github.sluice.config.ConfigWatch}): edits apply without a redeployment once the file
 * is stable and complete, a version with an error is refused and the policies in force stay. The watch ends when the application's
 * enforcer is garbage after undeployment (JAX-RS has no portable undeploy event).
 *
 * <p>Immutable and thread-safe.
 */
@Provider
@ConstrainedTo(RuntimeType.SERVER)
public final class SluiceFeature implements Feature {

    /** The prefix of the configuration properties the feature reads. */
    public static final String PREFIX = "sluice.";
    /** The configuration property that may hold a ready {@link Enforcer}. */
    public static final String ENFORCER = "sluice.enforcer";
    /** The configuration property that may hold the {@link io.github.sluice.store.Store} to use, e.g. Redis. */
    public static final String STORE = "sluice.store";
    /**
     * The configuration property that may hold a {@code java.util.function.BiConsumer<String, Object>}
     * to which the feature publishes its enforcer, under {@value #ENFORCER_ATTRIBUTE_PREFIX}
     * followed by the {@value #NAME} property (default {@value #DEFAULT_NAME}), as the servlet
     * filter publishes its own in the servlet context: in a servlet container, pass
     * {@code servletContext::setAttribute}, and a metrics endpoint or the admin servlet finds the
     * JAX-RS policies next to the filter's.
     */
    public static final String PUBLISH = "sluice.publish";
    /** The configuration property naming the feature's enforcer where it is {@linkplain #PUBLISH published}. */
    public static final String NAME = "sluice.name";
    /** The name of the feature's enforcer when {@value #NAME} is not set. */
    public static final String DEFAULT_NAME = "jaxrs";
    /** The prefix of the published enforcer's name: the servlet filter's, {@code io.github.sluice.Enforcer.}. */
    public static final String ENFORCER_ATTRIBUTE_PREFIX = "io.github.sluice.Enforcer.";
    /**
     * The request property the default peer-address lookup reads first: an earlier filter may put
     * the client's address there. Without it, in a servlet container, the feature reads the
     * address of the servlet request; see {@link Builder#peerAddress}.
     */
    public static final String PEER_ADDRESS = "io.github.sluice.peer-address";
    /**
     * The default priority of the request filters: after authentication (so that {@code
     * key=principal} sees the user), before authorization.
     */
    public static final int PRIORITY = Priorities.AUTHENTICATION + 100;

    private static final Function<ContainerRequestContext, String> PEER_FROM_PROPERTY = request -> {
        Object peer = request.getProperty(PEER_ADDRESS);
        return peer == null ? null : peer.toString();
    };

    private final Enforcer enforcer;
    /** Registered so that the runtime injects the servlet request and response; null without the servlet API. */
    private final ServletPeer servletPeer;
    private final boolean addressKnowable;
    private final StageSettings settings;
    private final InFlight inFlight = new InFlight();

    /** Creates a feature configured from the application's configuration properties. */
    public SluiceFeature() {
        this(builder());
    }

    /**
     * Creates a feature that applies the policies of {@code enforcer}.
     *
     * @param enforcer the enforcer, shared by every stage; the caller closes it
     * @throws NullPointerException if {@code enforcer} is null
     */
    public SluiceFeature(Enforcer enforcer) {
        this(builder().enforcer(enforcer));
    }

    private SluiceFeature(Builder b) {
        this.enforcer = b.enforcer;
        Function<ContainerRequestContext, String> lookup = b.peerAddress;
        // The servlet request and response, where there is a servlet API: the address (unless the
        // application gives a lookup) and the rate-limit fields a servlet filter in front wrote.
        this.servletPeer = AddressSource.servletApiPresent() ? new ServletPeer() : null;
        if (lookup == null && servletPeer != null) {
            lookup = AddressSource.propertyThenServlet(servletPeer);
        }
        this.addressKnowable = lookup != null;
        this.settings = new StageSettings(new PeerAddress(lookup == null ? PEER_FROM_PROPERTY : lookup),
                b.pause, b.priority, servletPeer);
    }

    /** @return a builder for a feature with options */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Installs the stages, and publishes the enforcer if {@value #PUBLISH} is set.
     *
     * @throws IllegalArgumentException (a {@link io.github.sluice.policy.ConfigException}) if a
     *     configuration property is invalid, or {@value #PUBLISH} does not hold a {@code BiConsumer}
     * @throws IllegalStateException if a policy needs the client's address ({@code key=ip}, an
     *     allow-list of networks) and there is no way to know it: no servlet API (so no servlet
     *     request to read it from) and no {@link Builder#peerAddress} lookup
     */
    @Override
    public boolean configure(FeatureContext context) {
        Enforcer e = enforcer != null ? enforcer : FeatureProperties.enforcer(context.getConfiguration());
        if (servletPeer != null) {
            context.register(servletPeer);
        }
        if (!addressKnowable) {
            String needs = AddressSource.policyNeedingAddress(e);
            if (needs != null) {
                if (enforcer == null) {
                    e.close();
                }
                throw new IllegalStateException(needs + " needs the client's address, and this JAX-RS runtime "
                        + "has no servlet request to read it from (the servlet API is not on the class path): "
                        + "build the feature with SluiceFeature.builder().peerAddress(request -> ...), a function that "
                        + "returns the TCP peer's address (e.g. request -> (String) request.getProperty(\""
                        + PEER_ADDRESS + "\") when an earlier filter sets that property), or key the policy by "
                        + "something else (key=header:..., key=principal); see docs/jaxrs.md, 'The client's address'");
            }
        }
        boolean watched = enforcer == null && FeatureProperties.watch(e, context.getConfiguration());
        FeatureProperties.publish(context.getConfiguration(), e);
        if (UnmappedExceptions.needed()) {
            // Before JAX-RS 3.1, an exception nobody maps skips the response filters that release.
            context.register(new UnmappedExceptions(), UnmappedExceptions.PRIORITY);
        } else {
            FeatureProperties.warnIfResponseFiltersCanBeSkipped(context.getConfiguration());
        }
        boolean byPath = false;
        for (Policy p : e.policies()) {
            byPath |= !p.match().equals(Match.NONE);
        }
        if (byPath || watched) {
            // (A watched file may add policies matched by path later.)
            context.register(new LimitStage.PreMatching(e, inFlight, settings), settings.priorities());
        }
        context.register(new RateLimitedBinding(e, inFlight, settings));
        return true;
    }

    /** @return the requests decided and not yet responded to (for tests) */
    int inFlight() {
        return inFlight.size();
    }

    @Override
    public String toString() {
        return "SluiceFeature{" + (enforcer == null ? "from properties" : enforcer) + ", priority=" + settings.priority() + '}';
    }

    /** Builds a {@link SluiceFeature}. Not thread-safe. */
    public static final class Builder {
        private Enforcer enforcer;
        /** null: the default (the property, then the servlet request). */
        private Function<ContainerRequestContext, String> peerAddress;
        private Pause pause = Pause.SLEEP;
        private int priority = PRIORITY;

        private Builder() {
        }

        /**
         * Sets the enforcer. Default: one built from the configuration properties.
         *
         * @param enforcer the enforcer; the caller closes it
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder enforcer(Enforcer enforcer) {
            this.enforcer = Objects.requireNonNull(enforcer, "enforcer");
            return this;
        }

        /**
         * Sets how the TCP peer's address of a request is found, for {@code key=ip} and
         * allow-lists of networks. Default: the request property {@value SluiceFeature#PEER_ADDRESS}
         * if an earlier filter set it, else, in a servlet container, the remote address of the
         * servlet request the runtime injects; without the servlet API on the class path there is
         * no default, and a policy that needs the address fails the deployment. The function
         * replaces the default, runs on the request's thread, must be thread-safe, and returns
         * {@code null} when the address is unknown (the key is then {@code unknown}).
         *
         * @param peerAddress the lookup
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder peerAddress(Function<ContainerRequestContext, String> peerAddress) {
            this.peerAddress = Objects.requireNonNull(peerAddress, "peerAddress");
            return this;
        }

        /**
         * Sets the priority of the request filters. Default {@link SluiceFeature#PRIORITY}.
         *
         * @param priority a {@code @Priority} value; lower runs earlier
         * @return this builder
         */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /** Sets how shaped requests wait (tests record instead of sleeping). */
        Builder pause(Pause pause) {
            this.pause = Objects.requireNonNull(pause, "pause");
            return this;
        }

        /** @return the feature */
        public SluiceFeature build() {
            return new SluiceFeature(this);
        }
    }
}
