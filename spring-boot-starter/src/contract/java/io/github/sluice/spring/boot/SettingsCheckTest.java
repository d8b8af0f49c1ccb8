package io.github.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code sluice.*} property that is unknown or configures nothing fails the start-up naming it
 * and its value, or, where failing would break a documented use, is logged in one WARNING (the
 * table in {@code docs/spring-boot.md} section 1); and a {@code sluice.config} file alone turns
 * Sluice on. Compiled and run on Boot 3.5 and, by boot4-tests, on Boot 4.0.
 */
@ExtendWith(OutputCaptureExtension.class)
class SettingsCheckTest {

    private static final String POLICY = "sluice.policies.p=token-bucket 10/1s key=ip";

    private static final AutoConfigurations STARTER = AutoConfigurations.of(SluiceSettingsAutoConfiguration.class,
            SluiceAutoConfiguration.class);

    /** The starter with nothing set. */
    private final WebApplicationContextRunner bare = new WebApplicationContextRunner().withConfiguration(STARTER);

    /** The starter, quiet (no decision logged). */
    private final WebApplicationContextRunner web = bare.withPropertyValues("sluice.listener=none");

    @TempDir
    Path dir;

    /** The messages of the start-up failure, with its causes and suppressed exceptions. */
    private static String failure(Throwable t) {
        assertNotNull(t, "the start-up did not fail");
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append('\n');
        }
        return b.toString();
    }

    private Path file(String text) throws IOException {
        Path f = Files.createTempFile(dir, "sluice", ".properties");
        Files.writeString(f, text);
        return f;
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void configFileAlone_turnsSluiceOn_withTheFilesPolicies_andTheFilter() throws IOException {
        Path f = file("policy.from-file = fixed-window 3/1h key=ip\n");
        web.withPropertyValues("sluice.config=" + f, "sluice.config-watch=false").run(context -> {
            assertThat(context).hasNotFailed();
            Enforcer e = context.getBean(Enforcer.class);
            assertEquals("from-file", e.policies().get(0).name());
            assertThat(context).hasBean(SluiceAutoConfiguration.FILTER_REGISTRATION);
        });
    }

    @Test
    void nothingSet_startsWithoutSluice() {
        bare.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Enforcer.class);
        });
        // An empty value counts as not set (sluice.redis.url=${REDIS_URL:}).
        bare.withPropertyValues("sluice.redis.url=", "sluice.headers=").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void noPolicyGiven_anySetting_failsNamingThePropertyAndValue() {
        for (String setting : new String[] {"sluice.headers=none", "sluice.enabled=true", "sluice.filter.order=5",
            "sluice.redis.url=redis://localhost:6379", "sluice.trusted-proxies[0]=10.0.0.0/8"}) {
            bare.withPropertyValues(setting).run(context -> {
                String message = failure(context.getStartupFailure());
                String name = setting.substring(0, setting.indexOf('='));
                assertTrue(message.contains("property '" + name + "'"), setting + ": " + message);
                assertTrue(message.contains("='" + setting.substring(setting.indexOf('=') + 1) + "'"), message);
                assertTrue(message.contains("configures nothing: Sluice is off: no policy is given"), message);
            });
        }
    }

    @Test
    void misspeltPolicies_failsNamingThePropertyAndTheNearestName() {
        web.withPropertyValues("sluice.polices.per-ip=token-bucket 10/1s key=ip").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.polices.per-ip'"), message);
            assertTrue(message.contains("polices.per-ip='token-bucket 10/1s key=ip': unknown property;"
                    + " did you mean 'sluice.policies.per-ip'?"), message);
        });
    }

    @Test
    void unknownNames_failWithTheNearestKnownName_orTheKnownNames() {
        String[][] cases = {
            {"sluice.filter.oder=5", "sluice.filter.order"},
            {"sluice.redis.uri=redis://localhost", "sluice.redis.url"},
            {"sluice.policy.per-ip=token-bucket 1/1s key=ip", "sluice.policies.per-ip"},
            {"sluice.header=none", "sluice.headers"},
            {"sluice.dry.run=true", "sluice.dry-run"}, // SLUICE_DRY_RUN: Boot binds SLUICE_DRYRUN
            {"sluice.config-watch-intervall=5s", "sluice.config-watch-interval"},
        };
        for (String[] c : cases) {
            web.withPropertyValues(POLICY, c[0]).run(context -> {
                String message = failure(context.getStartupFailure());
                assertTrue(message.contains("property '" + c[0].substring(0, c[0].indexOf('=')) + "'"), message);
                assertTrue(message.contains("unknown property; did you mean '" + c[1] + "'?"), message);
            });
        }
        web.withPropertyValues(POLICY, "sluice.rate-limits.x=5").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.rate-limits.x'"), message);
            assertTrue(message.contains("unknown property; known properties: [sluice.config,"), message);
        });
    }

    /** Environment variables are sluice.* properties too, in Boot's mapping (no dashes). */
    @Test
    void environmentVariable_misspelt_failsNamingIt_andTheRightOneBinds() {
        web.withPropertyValues(POLICY).withInitializer(env("SLUICE_DRY_RUN", "true")).run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.dry.run' (\"SLUICE_DRY_RUN\""), message);
            assertTrue(message.contains("did you mean 'sluice.dry-run'?"), message);
        });
        web.withPropertyValues(POLICY).withInitializer(env("SLUICE_DRYRUN", "true")).run(context -> {
            assertThat(context).hasNotFailed();
            assertTrue(context.getBean(Enforcer.class).policies().get(0).dryRun());
        });
    }

    private static org.springframework.context.ApplicationContextInitializer<
            org.springframework.context.ConfigurableApplicationContext> env(String name, String value) {
        return context -> context.getEnvironment().getPropertySources().addFirst(
                new org.springframework.core.env.SystemEnvironmentPropertySource(
                        org.springframework.core.env.StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        java.util.Map.of(name, value)));
    }

    @Test
    void severalProblems_areReportedTogether() {
        web.withPropertyValues(POLICY, "sluice.filter.enabled=false", "sluice.filter.order=5", "sluice.headrs=none")
                .run(context -> {
                    String message = failure(context.getStartupFailure());
                    assertTrue(message.startsWith("2 sluice.* properties are unknown or configure nothing:"), message);
                    assertTrue(message.contains("property 'sluice.filter.order'"), message);
                    assertTrue(message.contains("property 'sluice.headrs'"), message);
                });
    }

    /**
     * {@code sluice.enabled=false} is the switch for an application.yml shared with environments
     * where Sluice must be off: it starts, and says once what it ignores.
     */
    @Test
    void enabledFalse_withOtherSettings_startsWithoutSluice_andWarnsOnce(CapturedOutput output) {
        web.withPropertyValues(POLICY, "sluice.enabled=false", "sluice.headers=none").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Enforcer.class);
        });
        assertEquals(1, count(output.getOut(), "sluice.enabled is false"), output.getOut());
        assertTrue(output.getOut().contains("WARN"), output.getOut());
        assertTrue(output.getOut().contains("sluice.policies.p=token-bucket 10/1s key=ip"), output.getOut());
        assertTrue(output.getOut().contains("sluice.headers=none"), output.getOut());
    }

    @Test
    void enabledFalse_misspeltName_stillFails() {
        web.withPropertyValues("sluice.enabled=false", "sluice.polices.p=token-bucket 10/1s key=ip")
                .run(context -> assertTrue(failure(context.getStartupFailure())
                        .contains("did you mean 'sluice.policies.p'?")));
    }

    @Test
    void ownEnforcerBean_alone_turnsSluiceOn_withTheFilter() {
        bare.withUserConfiguration(OwnEnforcer.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasBean(SluiceAutoConfiguration.FILTER_REGISTRATION);
            assertEquals(context.getBean(Enforcer.class), context.getBean(SluiceAutoConfiguration.FILTER_REGISTRATION,
                    FilterRegistrationBean.class).getFilter() instanceof io.github.sluice.servlet.SluiceFilter f
                            ? f.enforcer() : null);
        });
    }

    @Test
    void ownEnforcerBean_withSettingsThatBuildTheEnforcer_failsNamingThemAndTheBean() {
        for (String setting : new String[] {POLICY, "sluice.headers=none", "sluice.config=classpath:x.properties",
            "sluice.redis.url=redis://localhost:6379"}) {
            bare.withUserConfiguration(OwnEnforcer.class).withPropertyValues(setting).run(context -> {
                        String message = failure(context.getStartupFailure());
                        assertTrue(message.contains("property '" + setting.substring(0, setting.indexOf('=')) + "'"),
                                message);
                        assertTrue(message.contains("the application's Enforcer bean 'mine' replaces the enforcer"),
                                message);
                    });
        }
        bare.withUserConfiguration(OwnEnforcer.class).withPropertyValues("sluice.filter.order=5")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void filterDisabled_filterSettings_failNamingThem() {
        for (String setting : new String[] {"sluice.filter.order=5", "sluice.filter.url-patterns=/api/*",
            "sluice.filter.shaping=blocking"}) {
            web.withPropertyValues(POLICY, "sluice.filter.enabled=false", setting).run(context -> {
                String message = failure(context.getStartupFailure());
                assertTrue(message.contains("property '" + setting.substring(0, setting.indexOf('=')) + "'"), message);
                assertTrue(message.contains("configures nothing: sluice.filter.enabled is false"), message);
            });
        }
    }

    @Test
    void ownFilterRegistration_filterSettings_failNamingThemAndTheBean() {
        web.withUserConfiguration(OwnRegistration.class).withPropertyValues(POLICY, "sluice.filter.url-patterns=/api/*")
                .run(context -> {
                    String message = failure(context.getStartupFailure());
                    assertTrue(message.contains("property 'sluice.filter.url-patterns"), message);
                    assertTrue(message.contains("the application's bean 'sluiceFilterRegistration' registers"), message);
                });
    }

    /**
     * The same application.yml runs the application without a web server
     * ({@code spring.main.web-application-type=none}, tests without a web environment): it starts,
     * and says once that the filter's settings apply to nothing.
     */
    @Test
    void notAServletWebApplication_filterSettings_startAndWarnOnce(CapturedOutput output) {
        new ApplicationContextRunner().withConfiguration(STARTER)
                .withPropertyValues(POLICY, "sluice.listener=none", "sluice.filter.order=5").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(Enforcer.class);
                });
        assertEquals(1, count(output.getOut(), "this is not a servlet or reactive web application"), output.getOut());
        assertTrue(output.getOut().contains("sluice.filter.order=5"), output.getOut());
    }

    @Test
    void watchSettings_withoutAWatchedFile_failNamingThem() throws IOException {
        String file = "sluice.config=" + file("policy.q = token-bucket 1/1s key=ip\n");
        String[][] cases = {
            {"sluice.config-watch-interval=5s", "sluice.config is not set"},
            {"sluice.config-reload=reset", "sluice.config is not set"},
            {"sluice.config-watch=true", "sluice.config is not set"},
            {"sluice.config-watch-interval=5s", "never watched", "sluice.config=classpath:sluice-test.properties"},
            {"sluice.config-reload=reset", "sluice.config-watch is false", file, "sluice.config-watch=false"},
        };
        for (String[] c : cases) {
            String[] more = java.util.Arrays.copyOfRange(c, 2, c.length);
            web.withPropertyValues(POLICY, c[0]).withPropertyValues(more).run(context -> {
                String message = failure(context.getStartupFailure());
                assertTrue(message.contains("property '" + c[0].substring(0, c[0].indexOf('=')) + "'"), message);
                assertTrue(message.contains(c[1]), message);
            });
        }
        web.withPropertyValues(POLICY, file, "sluice.config-watch-interval=5s", "sluice.config-reload=reset")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void inMemoryStoreSettings_withAStoreBean_failNamingThem() {
        web.withUserConfiguration(OwnStore.class).withPropertyValues(POLICY, "sluice.max-keys=1000").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.max-keys'"), message);
            assertTrue(message.contains("max-keys='1000': configures nothing: it configures the in-memory store, but"
                    + " the policies keep their state in the Store bean 'ownStore'"), message);
        });
    }

    @Test
    void degradedHeader_withTheInMemoryStore_failsNamingIt() {
        web.withPropertyValues(POLICY, "sluice.degraded-header=X-Degraded").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.degraded-header'"), message);
            assertTrue(message.contains("in memory, which is never degraded"), message);
        });
        web.withUserConfiguration(OwnStore.class).withPropertyValues(POLICY, "sluice.degraded-header=X-Degraded")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void redisUrl_withoutSluiceRedis_failsNamingIt() {
        web.withClassLoader(new FilteredClassLoader("io.github.sluice.redis."))
                .withPropertyValues(POLICY, "sluice.redis.url=redis://localhost:6379").run(context -> {
                    String message = failure(context.getStartupFailure());
                    assertTrue(message.contains("property 'sluice.redis.url'"), message);
                    assertTrue(message.contains("sluice-redis is not on the class path"), message);
                });
    }

    @Test
    void redisUrl_withAStoreBean_failsNamingItAndTheBean() {
        web.withUserConfiguration(OwnStore.class).withPropertyValues(POLICY, "sluice.redis.url=redis://localhost:6379")
                .run(context -> {
                    String message = failure(context.getStartupFailure());
                    assertTrue(message.contains("property 'sluice.redis.url'"), message);
                    assertTrue(message.contains("the application's Store bean 'ownStore'"), message);
                });
    }

    @Test
    void configFileWithoutPolicies_unwatched_failsNamingIt() throws IOException {
        Path empty = file("headers = none\n");
        web.withPropertyValues("sluice.config=" + empty, "sluice.config-watch=false").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.config': config='" + empty + "': defines no policy"), message);
        });
    }

    /** An operator may empty a watched file to lift every limit; the next start must not fail. */
    @Test
    void configFileWithoutPolicies_watched_startsAndWarnsOnce(CapturedOutput output) throws IOException {
        Path empty = file("# no limits for now\n");
        web.withPropertyValues("sluice.config=" + empty).run(context -> {
            assertThat(context).hasNotFailed();
            assertTrue(context.getBean(Enforcer.class).policies().isEmpty());
        });
        assertEquals(1, count(output.getOut(), "Sluice enforces no policy"), output.getOut());
    }

    @Test
    void headersOn_withHeadersNone_failsNamingIt_whereverNoneIsSet() throws IOException {
        web.withPropertyValues(POLICY, "sluice.headers=none", "sluice.headers-on=denial").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.headers-on': headers-on='denial': configures nothing:"
                    + " headers is none"), message);
        });
        Path f = file("headers = none\n");
        web.withPropertyValues(POLICY, "sluice.config=" + f, "sluice.config-watch=false", "sluice.headers-on=denial")
                .run(context -> assertTrue(failure(context.getStartupFailure()).contains("property 'sluice.headers-on'")));
        web.withPropertyValues(POLICY, "sluice.headers=x-ratelimit", "sluice.headers-on=denial")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void forwardedHeader_withoutTrustedProxies_failsNamingIt_unlessTheFileTrustsSome() throws IOException {
        web.withPropertyValues(POLICY, "sluice.forwarded-header=forwarded").run(context -> {
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.forwarded-header': forwarded-header='forwarded': configures"
                    + " nothing: no trusted-proxies are set"), message);
        });
        Path f = file("trusted-proxies = 10.0.0.0/8\n");
        web.withPropertyValues(POLICY, "sluice.config=" + f, "sluice.config-watch=false",
                "sluice.forwarded-header=forwarded").run(context -> assertThat(context).hasNotFailed());
    }

    /** Boot's own switch for an auto-configuration: like sluice.enabled=false, one WARNING. */
    @Test
    void autoConfigurationExcluded_policies_startAndWarnOnce(CapturedOutput output) {
        new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(SluiceSettingsAutoConfiguration.class))
                .withPropertyValues(POLICY).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(Enforcer.class);
                });
        assertEquals(1, count(output.getOut(), "Sluice's auto-configuration is excluded"), output.getOut());
    }

    @Test
    void nearest_isNullForNamesFarFromEveryProperty() {
        assertNull(SluicePropertyNames.nearest("sluice.completely-different"));
        assertEquals("sluice.shards", SluicePropertyNames.nearest("sluice.shard"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEnforcer {
        @Bean
        Enforcer mine() {
            return Enforcer.builder().policies("mine = token-bucket 5/1s key=ip").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {
        @Bean
        Store ownStore() {
            return ShardedRegistry.builder().build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistration {
        @Bean(name = SluiceAutoConfiguration.FILTER_REGISTRATION)
        FilterRegistrationBean<io.github.sluice.servlet.SluiceFilter> registration(Enforcer enforcer) {
            return new FilterRegistrationBean<>(new io.github.sluice.servlet.SluiceFilter(enforcer));
        }
    }
}
