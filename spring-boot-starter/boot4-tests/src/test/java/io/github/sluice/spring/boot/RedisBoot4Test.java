package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.spring.boot.health.SluiceHealthContributorAutoConfiguration;
import io.github.sluice.spring.boot.health.SluiceHealthIndicator;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContext;

/**
 * {@link RedisStarterContract} on Boot 4.0: the starter's Redis store (Lettuce, as Boot 4.0
 * manages it) against a real {@code redis-server}, its health through Boot 4.0's relocated health
 * API ({@code org.springframework.boot.health.contributor}).
 */
class RedisBoot4Test extends RedisStarterContract {

    @Override
    protected Class<?> healthAutoConfiguration() {
        return SluiceHealthContributorAutoConfiguration.class;
    }

    @Override
    protected String healthStatus(ApplicationContext context) {
        return context.getBean(SluiceHealthIndicator.class).health().getStatus().getCode();
    }

    @Override
    protected Map<String, Object> healthDetails(ApplicationContext context) {
        return context.getBean(SluiceHealthIndicator.class).health().getDetails();
    }

    @Test
    void runsOnBoot4_0_withTheLettuceBoot4_0Manages() {
        assertTrue(SpringBootVersion.getVersion().startsWith("4.0."), SpringBootVersion.getVersion());
        String lettuce = io.lettuce.core.RedisClient.class.getPackage().getImplementationVersion();
        assertTrue(lettuce != null && lettuce.startsWith("6.8."), "Lettuce " + lettuce);
    }
}
