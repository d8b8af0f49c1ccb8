package io.github.sluice.spring.boot;

import io.github.sluice.spring.boot.actuate.SluiceHealthAutoConfiguration;
import io.github.sluice.spring.boot.actuate.SluiceHealthIndicator;
import java.util.Map;
import org.springframework.context.ApplicationContext;

/** {@link RedisStarterContract} on Boot 3.x, whose health API is {@code org.springframework.boot.actuate.health}. */
class RedisStarterTest extends RedisStarterContract {

    @Override
    protected Class<?> healthAutoConfiguration() {
        return SluiceHealthAutoConfiguration.class;
    }

    @Override
    protected String healthStatus(ApplicationContext context) {
        return context.getBean(SluiceHealthIndicator.class).health().getStatus().getCode();
    }

    @Override
    protected Map<String, Object> healthDetails(ApplicationContext context) {
        return context.getBean(SluiceHealthIndicator.class).health().getDetails();
    }
}
