package io.github.sluice.jaxrs;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Gives each resource method annotated {@link RateLimited} (directly or through its class) its
 * own {@link LimitStage}, with the policy selection resolved here, once, at deployment. Methods
 * without the annotation get nothing, so they pay nothing per request.
 */
final class RateLimitedBinding implements DynamicFeature {

    private final Enforcer enforcer;
    private final InFlight inFlight;
    private final StageSettings settings;

    RateLimitedBinding(Enforcer enforcer, InFlight inFlight, StageSettings settings) {
        this.enforcer = enforcer;
        this.inFlight = inFlight;
        this.settings = settings;
    }

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        Method method = resource.getResourceMethod();
        Class<?> type = resource.getResourceClass();
        RateLimited annotation = method == null ? null : method.getAnnotation(RateLimited.class);
        if (annotation == null && type != null) {
            annotation = type.getAnnotation(RateLimited.class);
        }
        if (annotation == null) {
            return;
        }
        PolicySet selection;
        try {
            selection = enforcer.select(List.of(annotation.value()), annotation.cost());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("@RateLimited on " + (type == null ? "" : type.getName() + ".")
                    + (method == null ? "?" : method.getName()) + ": " + e.getMessage(), e);
        }
        context.register(new LimitStage(enforcer, selection, inFlight, settings), settings.priorities());
    }

    @Override
    public String toString() {
        return "RateLimitedBinding{" + enforcer + '}';
    }
}
