package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.PolicyFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/** Calendar quotas written in {@code application.yml}, as docs/recipes.md shows them. */
class CalendarYamlTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceSettingsAutoConfiguration.class, SluiceAutoConfiguration.class))
            .withPropertyValues("sluice.listener=none");

    /** The YAML document as the property values Spring Boot reads from it. */
    private static String[] yaml(String text) throws IOException {
        List<String> values = new ArrayList<>();
        for (PropertySource<?> source : new YamlPropertySourceLoader().load("application.yml",
                new ByteArrayResource(text.getBytes(StandardCharsets.UTF_8)))) {
            EnumerablePropertySource<?> e = (EnumerablePropertySource<?>) source;
            for (String name : e.getPropertyNames()) {
                values.add(name + "=" + e.getProperty(name));
            }
        }
        return values.toArray(String[]::new);
    }

    @Test
    void monthlyQuotaInYaml_isTheCalendarWindowOfItsZone() throws IOException {
        runner.withPropertyValues(yaml("""
                sluice:
                  policies:
                    burst: token-bucket 10/1s key=attribute:customer unresolved=deny:401 match=/api/*
                    monthly: fixed-window 1000/month zone=Europe/Paris key=attribute:customer unresolved=deny:401 match=/api/*
                """)).run(context -> {
                    Enforcer e = context.getBean(Enforcer.class);
                    assertEquals("fixed-window 1000/month zone=Europe/Paris",
                            PolicyFormat.algorithm(e.policies().get(1).algorithm()));
                });
    }

    @Test
    void unknownZoneInYaml_failsStartUpNamingTheZone() throws IOException {
        runner.withPropertyValues(yaml("""
                sluice:
                  policies:
                    monthly: fixed-window 1000/month zone=Europe/Pariss key=ip
                """)).run(context -> {
                    Throwable failure = context.getStartupFailure();
                    assertNotNull(failure, "an unknown zone was accepted");
                    StringBuilder messages = new StringBuilder();
                    for (Throwable c = failure; c != null; c = c.getCause()) {
                        messages.append(c.getMessage()).append('\n');
                    }
                    assertTrue(messages.toString().contains("zone='Europe/Pariss'")
                            && messages.toString().contains("did you mean 'Europe/Paris'?"), messages.toString());
                });
    }
}
