package io.github.sluice.jaxrs;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Applies named Sluice policies to a resource method, or to every resource method of a class.
 *
 * <pre>{@code
 * @GET
 * @Path("export")
 * @RateLimited(value = "exports", cost = 5)
 * public Report export() { ... }
 * }</pre>
 *
 * <p>The names refer to policies of the {@link SluiceFeature}'s enforcer; they are applied
 * regardless of their {@code match} (write {@code match=none} for a policy used only through
 * this annotation, so that it is not applied by path as well). The selection is resolved once
 * per resource method when the application is deployed: an unknown name, a name given twice, or a
 * cost above a policy's limit fails the deployment.
 *
 * <p>An annotation on the method replaces the one on its class. Unannotated resource methods get
 * no filter at all.
 */
@NameBinding
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RateLimited {

    /**
     * The policies to apply, all or nothing: if one denies, the permits the others took are given
     * back.
     *
     * @return policy names, at least one
     */
    String[] value();

    /**
     * The permits one request takes from every named policy, replacing each policy's own
     * {@code cost=}, also one read from the request ({@code cost=header:}, {@code body},
     * {@code bean:}).
     *
     * @return {@code >= 1}, or {@code 0} (the default) for each policy's own cost, read from the
     *     request if the policy's is
     */
    long cost() default 0;
}
