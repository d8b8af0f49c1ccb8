package io.github.sluice.spring.boot.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.spring.boot.SluiceAutoConfiguration;
import io.github.sluice.spring.boot.SluiceSettingsAutoConfiguration;
import io.github.sluice.webflux.SluiceWebFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.web.reactive.WebFluxAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

/**
 * The {@code sluice.filter.*} properties in a reactive web application: the order is the web
 * filter's; what a reactive filter cannot do (URL patterns, blocking shaping) fails the start-up
 * naming the property and value; {@code enabled=false} leaves no filter. The servlet
 * registration is not made there.
 */
class ReactiveSettingsTest {

    private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceSettingsAutoConfiguration.class,
                    SluiceAutoConfiguration.class, WebFluxAutoConfiguration.class,
                    SluiceWebFluxAutoConfiguration.class))
            .withPropertyValues("sluice.listener=none", "sluice.policies.p=token-bucket 10/1s key=ip");

    private static String failure(Throwable t) {
        assertNotNull(t, "the start-up did not fail");
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append('\n');
        }
        return b.toString();
    }

    @Test
    void reactiveApplication_getsTheWebFilter_atTheOrderProperty_andNoServletRegistration() {
        reactive.withPropertyValues("sluice.filter.order=-50").run(context -> {
            assertThat(context).hasNotFailed();
            assertEquals(-50, context.getBean(SluiceWebFilter.class).getOrder());
            assertThat(context).doesNotHaveBean(SluiceAutoConfiguration.FILTER_REGISTRATION);
        });
    }

    @Test
    void urlPatterns_inAReactiveApplication_failNamingThePropertyAndValue() {
        reactive.withPropertyValues("sluice.filter.url-patterns=/api/*").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("sluice.filter.url-patterns") && message.contains("/api/*"), message);
            assertTrue(message.contains("choose requests with each policy's match="), message);
        });
    }

    @Test
    void blockingShaping_inAReactiveApplication_failsNamingThePropertyAndValue() {
        reactive.withPropertyValues("sluice.filter.shaping=blocking").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("sluice.filter.shaping") && message.contains("blocking"), message);
            assertTrue(message.contains("never blocks an event loop"), message);
        });
    }

    @Test
    void filterDisabled_leavesNoWebFilter() {
        reactive.withPropertyValues("sluice.filter.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(SluiceWebFilter.class);
        });
    }
}
