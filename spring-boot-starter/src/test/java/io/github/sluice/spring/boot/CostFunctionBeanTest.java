package io.github.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.policy.CostFunction;
import io.github.sluice.testing.FakeRequest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A cost read from the request, configured in properties (as YAML gives them): {@code cost=bean:}
 * takes a {@link CostFunction} bean by name, {@code cost=header:} and {@code cost-default=} need
 * nothing but the property, and an unknown bean name stops the start-up naming policy and name.
 */
class CostFunctionBeanTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceSettingsAutoConfiguration.class, SluiceAutoConfiguration.class))
            .withPropertyValues("sluice.listener=none");

    @Configuration(proxyBeanMethods = false)
    static class Costs {
        @Bean
        CostFunction exportCost() {
            return request -> "full".equals(request.header("X-Export")) ? 10 : 1;
        }
    }

    @Test
    void costBean_isRegisteredUnderItsBeanName_andChargesWhatItReturns() {
        runner.withUserConfiguration(Costs.class)
                .withPropertyValues("sluice.policies.exports=fixed-window 100/1h key=ip cost=bean:exportCost")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Enforcer e = context.getBean(Enforcer.class);
                    Verdict full = e.enforce(FakeRequest.get("/").header("X-Export", "full"));
                    Verdict small = e.enforce(FakeRequest.get("/"));
                    assertThat(full.cost(0)).isEqualTo(10);
                    assertThat(small.cost(0)).isEqualTo(1);
                    assertThat(small.decision(0).remaining()).isEqualTo(89);
                });
    }

    @Test
    void headerCostWithDefault_fromProperties_chargesTheDefaultForABadValue() {
        runner.withPropertyValues("sluice.policies.bulk=fixed-window 100/1h key=ip cost=header:X-Cost cost-default=7")
                .run(context -> {
                    Enforcer e = context.getBean(Enforcer.class);
                    assertThat(e.enforce(FakeRequest.get("/").header("X-Cost", "3")).cost(0)).isEqualTo(3);
                    assertThat(e.enforce(FakeRequest.get("/").header("X-Cost", "-3")).cost(0)).isEqualTo(7);
                    assertThat(e.enforce(FakeRequest.get("/").header("X-Cost", "101")).status()).isEqualTo(400);
                });
    }

    @Test
    void costBean_unknownName_failsTheStartUpNamingPolicyAndName() {
        runner.withPropertyValues("sluice.policies.exports=fixed-window 100/1h key=ip cost=bean:nope")
                .run(context -> {
                    assertThat(context).hasFailed();
                    StringBuilder messages = new StringBuilder();
                    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                        messages.append(t.getMessage()).append('\n');
                    }
                    assertThat(messages.toString()).contains("cost bean:nope names no registered cost function")
                            .contains("policy 'exports'");
                });
    }
}
