package io.github.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.config.SluiceConfig;
import io.github.sluice.http.DenialBody;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.spring.boot.actuate.SluiceActuatorAutoConfiguration;
import io.github.sluice.spring.boot.actuate.SluiceHealthIndicator;
import io.github.sluice.spring.boot.web.RateLimited;
import io.github.sluice.spring.boot.web.SluiceWebMvcAutoConfiguration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Start-up: what the auto-configuration builds from the properties, what an application's beans
 * replace, and every mistake failing the start-up with a message that names the property (or the
 * method, or the bean name) and the value.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
class StartupTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceSettingsAutoConfiguration.class, SluiceAutoConfiguration.class,
                    SluiceWebMvcAutoConfiguration.class, SluiceActuatorAutoConfiguration.class,
                    io.github.sluice.spring.boot.actuate.SluiceHealthAutoConfiguration.class,
                    WebMvcAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class))
            .withPropertyValues("sluice.listener=none");

    /** A message of the start-up failure, with its causes. */
    private static String failure(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append('\n');
        }
        return b.toString();
    }

    @Test
    void noPolicies_noSettings_configuresNothing() {
        // The runner's sluice.listener would fail the start-up: it configures nothing (SettingsCheckTest).
        new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(SluiceSettingsAutoConfiguration.class,
                SluiceAutoConfiguration.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Enforcer.class);
            assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
        });
    }

    @Test
    void plans_yamlPlanTableAndOverrideLookupBean_decideByPlanAndContract() {
        runner.withPropertyValues("sluice.policies.api=fixed-window key=header:X-Api-Key plan=header:X-Plan"
                        + " default-plan=free override=bean:contractOf override-timeout=2s",
                "sluice.plans.api.free=2/1m", "sluice.plans.api.pro=5/1m")
                .withUserConfiguration(ContractLookup.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    Enforcer e = context.getBean(Enforcer.class);
                    assertEquals(java.util.List.of("free", "pro"), e.policies().get(0).plans().plans().stream()
                            .map(io.github.sluice.policy.Plans.Plan::name).toList());
                    int pro = 0;
                    int partner = 0;
                    for (int i = 0; i < 10; i++) {
                        pro += e.enforce(io.github.sluice.testing.FakeRequest.get("/").header("X-Api-Key", "k")
                                .header("X-Plan", "pro")).admitted() ? 1 : 0;
                        partner += e.enforce(io.github.sluice.testing.FakeRequest.get("/")
                                .header("X-Api-Key", "partner-1")).admitted() ? 1 : 0;
                    }
                    assertEquals(5, pro);
                    assertEquals(7, partner);
                });
    }

    @Test
    void plans_tableOfAPolicyNotGiven_failsNamingIt() {
        runner.withPropertyValues("sluice.policies.api=fixed-window 5/1m key=ip", "sluice.plans.apl.free=2/1m")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertTrue(failure(context.getStartupFailure()).contains("sluice.plans.apl"),
                            failure(context.getStartupFailure()));
                });
    }

    @Configuration
    static class ContractLookup {
        @Bean
        io.github.sluice.http.OverrideLookup contractOf() {
            return key -> key.equals("partner-1") ? "7/1m" : null;
        }
    }

    @Test
    void enabledFalse_configuresNothing() {
        runner.withPropertyValues("sluice.policies.per-ip=token-bucket 10/1s key=ip", "sluice.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(Enforcer.class));
    }

    @Test
    void policies_inTheOrderWritten_withEverySettingApplied() {
        runner.withPropertyValues("sluice.policies.b-second=token-bucket 10/1s key=ip",
                "sluice.policies.a-first=fixed-window 5/1m key=header:X-Api-Key",
                "sluice.headers=x-ratelimit", "sluice.trusted-proxies=10.0.0.0/8, 192.168.0.0/16",
                "sluice.max-key-length=64", "sluice.dry-run=true").run(context -> {
                    Enforcer e = context.getBean(Enforcer.class);
                    assertEquals("b-second", e.policies().get(0).name());
                    assertEquals("a-first", e.policies().get(1).name());
                    assertEquals(HeaderStyle.X_RATELIMIT, e.headerOptions().style());
                    assertEquals(64, e.maxKeyLength());
                    assertTrue(e.policies().get(0).dryRun());
                    assertTrue(e.clientAddress().toString().contains("10.0.0.0/8"), e.clientAddress().toString());
                    assertTrue(e.clientAddress().toString().contains("192.168.0.0/16"), e.clientAddress().toString());
                });
    }

    /**
     * Every setting of the servlet filter is bound (a setting added to {@link SluiceConfig#SETTINGS}
     * without a property fails here) and checked by the same rules, the message naming the
     * property and the value.
     */
    @Test
    void configFile_isWatched_editsApplyToTheRunningEnforcer_andABrokenEditIsRefused() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("sluice-boot", ".properties");
        try {
            java.nio.file.Files.writeString(file, "policy.from-file = fixed-window 5/10s key=ip\n");
            runner.withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip", "sluice.config=" + file,
                    "sluice.config-watch-interval=100ms").run(context -> {
                        assertThat(context).hasNotFailed();
                        Enforcer enforcer = context.getBean(Enforcer.class);
                        assertEquals("fixed-window 5/10s", formatOf(enforcer, "from-file"));
                        java.nio.file.Files.writeString(file, "policy.from-file = fixed-window 7/10s key=ip\n");
                        assertTrue(eventually(() -> "fixed-window 7/10s".equals(formatOf(enforcer, "from-file"))),
                                "the edit was not applied: " + enforcer.policies());
                        java.nio.file.Files.writeString(file, "policy.from-file = fixed-window seven/10s key=ip\n");
                        Thread.sleep(500); // five watch intervals
                        assertEquals("fixed-window 7/10s", formatOf(enforcer, "from-file"), "a broken edit is refused");
                        assertEquals("token-bucket 10/1s", formatOf(enforcer, "p"), "the application.yml policy stays");
                        // A version that lost the file's policies (a write cut before them) is
                        // refused too, though the property's policy would remain
                        java.nio.file.Files.writeString(file, "# limits\n");
                        Thread.sleep(500);
                        assertEquals("fixed-window 7/10s", formatOf(enforcer, "from-file"),
                                "a file without its policies is refused");
                    });
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void samePolicyInConfigFileAndProperties_thePropertyOverrides_alsoAfterAnEditOfTheFile() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("sluice-boot", ".properties");
        try {
            java.nio.file.Files.writeString(file, "policy.api = fixed-window 5/10s key=ip\n"
                    + "policy.other = fixed-window 6/10s key=ip\n");
            runner.withPropertyValues("sluice.policies.api=token-bucket 10/1s key=ip", "sluice.config=" + file,
                    "sluice.config-watch-interval=100ms").run(context -> {
                        assertThat(context).hasNotFailed();
                        Enforcer enforcer = context.getBean(Enforcer.class);
                        assertEquals(java.util.List.of("api", "other"),
                                enforcer.policies().stream().map(p -> p.name()).toList(), "in the file's order");
                        assertEquals("token-bucket 10/1s", formatOf(enforcer, "api"));
                        java.nio.file.Files.writeString(file, "policy.api = fixed-window 5/10s key=ip\n"
                                + "policy.other = fixed-window 8/10s key=ip\n");
                        assertTrue(eventually(() -> "fixed-window 8/10s".equals(formatOf(enforcer, "other"))),
                                "the edit was not applied: " + enforcer.policies());
                        assertEquals("token-bucket 10/1s", formatOf(enforcer, "api"), "the property still overrides");
                    });
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void noPoliciesTrue_withAPolicyInTheConfigFile_failsStartUpNamingBoth() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("sluice-boot", ".properties");
        try {
            java.nio.file.Files.writeString(file, "policy.from-file = fixed-window 5/10s key=ip\n");
            runner.withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip", "sluice.config=" + file,
                    "sluice.no-policies=true").run(context -> {
                        assertThat(context).hasFailed();
                        String message = failure(context.getStartupFailure());
                        assertTrue(message.contains("property 'sluice.no-policies'")
                                && message.contains("defines policy 'from-file'"), message);
                    });
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    private static String formatOf(Enforcer enforcer, String name) {
        for (io.github.sluice.policy.Policy p : enforcer.policies()) {
            if (p.name().equals(name)) {
                return io.github.sluice.policy.PolicyFormat.algorithm(p.algorithm());
            }
        }
        return null;
    }

    private static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }

    @Test
    void everySetting_badValue_failsStartUpNamingThePropertyAndValue() throws java.io.IOException {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("config", "classpath:no-such-file.properties");
        bad.put("headers", "draft-07");
        bad.put("headers-on", "sometimes");
        bad.put("expose-headers", "yes");
        bad.put("degraded-header", "X Degraded");
        bad.put("trusted-proxies", "10.0.0.0/33");
        bad.put("forwarded-header", "x-real-ip");
        bad.put("ipv6-prefix", "129");
        bad.put("dry-run", "maybe");
        bad.put("problem-type", "not a uri");
        bad.put("denial-content-type", "text/plain");
        bad.put("max-key-length", "39");
        bad.put("max-keys", "0");
        bad.put("memory-budget", "lots");
        bad.put("shards", "3");
        bad.put("exempt-methods", "OPTINS");
        bad.put("config-watch", "sometimes");
        bad.put("config-watch-interval", "5ms");
        bad.put("config-reload", "keep-all");
        bad.put("no-policies", "none");
        bad.put("top-clients", "1001");
        bad.put("top-clients-admitted", "maybe");
        bad.put("listener", "loud");
        Set<String> expected = new TreeSet<>(SluiceConfig.SETTINGS);
        expected.remove("policies"); // sluice.policies.<name>, tested below
        expected.remove("denial-body"); // any text is a body; its conflicts are tested below
        assertEquals(expected, new TreeSet<>(bad.keySet()), "a setting without a bad-value case");
        // The watch settings need a watched file, or they configure nothing (SettingsCheckTest).
        java.nio.file.Path file = java.nio.file.Files.createTempFile("sluice-boot", ".properties");
        file.toFile().deleteOnExit();
        String watched = "sluice.config=" + file;
        bad.forEach((name, value) -> runner
                .withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip", "sluice." + name + "=" + value)
                .withPropertyValues(name.startsWith("config-") ? new String[] {watched} : new String[0])
                .run(context -> {
                    assertTrue(context.getStartupFailure() != null, "sluice." + name + "=" + value + " was accepted");
                    String message = failure(context.getStartupFailure());
                    String property = name.equals("config") ? "config" : "property 'sluice." + name + "'";
                    assertTrue(message.contains(property), name + ": " + message);
                    assertTrue(message.contains(value.strip().split(",")[0]), name + ": " + message);
                }));
    }

    @Test
    void badPolicy_failsStartUpNamingThePropertyAndTheRule() {
        runner.withPropertyValues("sluice.policies.per-ip=token-bucket 100/1m brust=5 key=ip").run(context -> {
            assertThat(context).hasFailed();
            String message = failure(context.getStartupFailure());
            assertTrue(message.contains("property 'sluice.policies.per-ip' (policy 'per-ip'): brust='5'"), message);
            assertTrue(message.contains("did you mean 'burst'?"), message);
        });
    }

    @Test
    void denialBodyWithProblemType_failsStartUp() {
        runner.withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip", "sluice.denial-body=slow down",
                "sluice.problem-type=https://example.com/too-many").run(context -> {
                    assertThat(context).hasFailed();
                    assertTrue(failure(context.getStartupFailure()).contains("property 'sluice.problem-type'"));
                });
    }

    @Test
    void rateLimited_unknownPolicyName_failsStartUpNamingTheMethod() {
        runner.withPropertyValues("sluice.policies.per-key=fixed-window 5/10s key=ip match=none")
                .withUserConfiguration(Misspelt.class).run(context -> {
                    assertThat(context).hasFailed();
                    String message = failure(context.getStartupFailure());
                    assertTrue(message.contains("@RateLimited([per-kye]) on " + Misspelt.class.getName() + ".hello"),
                            message);
                    assertTrue(message.contains("unknown policy 'per-kye'"), message);
                });
    }

    /** A match=none policy no annotation names applies to no request: one WARNING names it. */
    @Test
    void matchNonePolicy_namedByNoAnnotation_warnsOnceNamingIt(CapturedOutput output) {
        runner.withPropertyValues("sluice.policies.per-kye=fixed-window 5/10s key=ip match=none",
                "sluice.policies.per-ip=fixed-window 5/10s key=ip").run(context -> assertThat(context).hasNotFailed());
        String out = output.getOut();
        assertEquals(1, out.split("are match=none and no @RateLimited handler names them", -1).length - 1, out);
        assertTrue(out.contains("Sluice policies [per-kye] are match=none"), out);
    }

    @Test
    void matchNonePolicy_namedByAnAnnotation_noWarning(CapturedOutput output) {
        runner.withPropertyValues("sluice.policies.per-key=fixed-window 5/10s key=ip match=none")
                .withUserConfiguration(Named.class).run(context -> assertThat(context).hasNotFailed());
        assertTrue(!output.getOut().contains("are match=none"), output.getOut());
    }

    @Test
    void rateLimited_costAboveTheLimit_failsStartUp() {
        runner.withPropertyValues("sluice.policies.per-key=fixed-window 5/10s key=ip match=none")
                .withUserConfiguration(TooCostly.class).run(context -> {
                    assertThat(context).hasFailed();
                    assertTrue(failure(context.getStartupFailure()).contains("cost must be <= the limit 5"));
                });
    }

    @Test
    void beanKey_noSuchBean_failsStartUpNamingThePolicyAndTheName() {
        runner.withPropertyValues("sluice.policies.per-tenant=fixed-window 5/10s key=bean:tenantResolver")
                .run(context -> {
                    assertThat(context).hasFailed();
                    String message = failure(context.getStartupFailure());
                    assertTrue(message.contains("key bean:tenantResolver names no registered key resolver"), message);
                    assertTrue(message.contains("policy 'per-tenant'"), message);
                });
    }

    @Test
    void applicationBeans_replaceTheEnforcer_theDenialBody_theFilterOrder() {
        runner.withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip", "sluice.filter.order=5")
                .withUserConfiguration(Body.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertEquals(Body.BODY, context.getBean(Enforcer.class).denialBody());
                    FilterRegistrationBean<?> r = context.getBean(SluiceAutoConfiguration.FILTER_REGISTRATION,
                            FilterRegistrationBean.class);
                    assertEquals(5, r.getOrder());
                });
        // The application's enforcer alone turns the starter on; properties that build an
        // enforcer would configure nothing beside it (SettingsCheckTest).
        new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class))
                .withUserConfiguration(OwnEnforcer.class).run(context -> {
                    Enforcer e = context.getBean(Enforcer.class);
                    assertEquals("mine", e.policies().get(0).name());
                    assertEquals(e, ((SluiceFilter) context.getBean(SluiceAutoConfiguration.FILTER_REGISTRATION,
                            FilterRegistrationBean.class).getFilter()).enforcer());
                });
        runner.withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip", "sluice.denial-body=no")
                .withUserConfiguration(Body.class).run(context -> {
                    assertThat(context).hasFailed();
                    assertTrue(failure(context.getStartupFailure()).contains("property 'sluice.denial-body' and the"
                            + " DenialBody bean"));
                });
    }

    @Test
    void filterDisabled_leavesOnlyTheAnnotation() {
        runner.withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip", "sluice.filter.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(Enforcer.class);
                    assertThat(context).doesNotHaveBean(SluiceAutoConfiguration.FILTER_REGISTRATION);
                });
    }

    /**
     * A degraded store makes the contributor OUT_OF_SERVICE (not DOWN: restarting the application
     * would not bring Redis back), with the details of the episode.
     */
    @Test
    void health_degradedStore_isOutOfService_andUpWhenItRecovers() {
        runner.withPropertyValues("sluice.policies.p=token-bucket 10/1s key=ip").run(context -> {
            Enforcer e = context.getBean(Enforcer.class);
            SluiceHealthIndicator health = context.getBean(SluiceHealthIndicator.class);
            assertEquals(Status.UP, health.health().getStatus());
            e.metrics().storeDegraded("redis", new java.io.IOException("connection refused"));
            Health degraded = health.health();
            assertEquals(Status.OUT_OF_SERVICE, degraded.getStatus());
            assertTrue(degraded.getDetails().toString().contains("degradations=1"), degraded.getDetails().toString());
            e.metrics().storeRecovered("redis");
            assertEquals(Status.UP, health.health().getStatus());
        });
    }

    @RestController
    static class Misspelt {
        @GetMapping("/misspelt")
        @RateLimited("per-kye")
        String hello() {
            return "hello";
        }
    }

    @RestController
    @RateLimited("per-key")
    static class Named {
        @GetMapping("/named")
        String hello() {
            return "hello";
        }
    }

    @RestController
    static class TooCostly {
        @GetMapping("/costly")
        @RateLimited(value = "per-key", cost = 6)
        String hello() {
            return "hello";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Body {
        static final DenialBody BODY = DenialBody.of("text/plain; charset=utf-8", "slow down");

        @Bean
        DenialBody denialBody() {
            return BODY;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEnforcer {
        @Bean
        Enforcer enforcer() {
            return Enforcer.builder().policies("mine = token-bucket 5/1s key=ip").build();
        }

        @Bean
        KeyResolver unused() {
            return r -> "x";
        }
    }
}
