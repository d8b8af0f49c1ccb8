package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.key.KeyResolvers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The plan options of the policy language: what they read, and what they refuse at start-up. */
class PlanParsingTest {

    private static final String API = "api = token-bucket burst=50 key=header:X-Api-Key plan=bean:planOf"
            + " plans=free:100/1m,pro:1000/1m,internal:unlimited,banned:blocked default-plan=free";

    @Test
    void plans_eachPlanIsTheAlgorithmWithItsLimitAndTheSharedOptions() {
        Policy p = Policy.parse(API);
        Plans plans = p.plans();
        assertEquals("free", plans.defaultPlan().name());
        assertEquals(TokenBucket.builder().rate(Rate.perMinute(1000)).burst(50).build(), plans.plans().get(1).algorithm());
        assertEquals(Plans.Type.UNLIMITED, plans.plans().get(2).type());
        assertEquals(Plans.Type.BLOCKED, plans.plans().get(3).type());
        assertEquals(plans.plans().get(0).algorithm(), p.algorithm(), "the policy's own limit is the default plan's");
        assertEquals(403, plans.blockedStatus());
        assertNull(plans.override());
    }

    @Test
    void plans_parseEqualsBuilder() {
        Policy parsed = Policy.parse("api = fixed-window align=first-request key=header:X-Api-Key plan=header:X-Plan"
                + " plans=free:5/1m,pro:20/1m default-plan=free");
        FixedWindow.Builder free = FixedWindow.builder().limit(5).window(Duration.ofMinutes(1))
                .alignment(FixedWindow.Alignment.FIRST_REQUEST);
        FixedWindow.Builder pro = FixedWindow.builder().limit(20).window(Duration.ofMinutes(1))
                .alignment(FixedWindow.Alignment.FIRST_REQUEST);
        Policy built = Policy.builder("api").algorithm(free.build()).key(KeyResolvers.header("X-Api-Key"))
                .plans(Plans.builder(KeyResolvers.header("X-Plan")).plan("free", free.build(), "5/1m")
                        .plan("pro", pro.build(), "20/1m").defaultPlan("free").build())
                .build();
        assertEquals(built, parsed);
    }

    @Test
    void format_writesThePlansBackSoThatTheyParseEqual() {
        Policy p = Policy.parse(API + " blocked-status=451");
        assertEquals(p, Policy.parse(PolicyFormat.format(p)), PolicyFormat.format(p));
        Policy o = Policy.parse("api = fixed-window 5/1m key=ip override=bean:contractOf override-ttl=5m"
                + " override-timeout=20ms override-cache=500");
        assertEquals(o, Policy.parse(PolicyFormat.format(o)), PolicyFormat.format(o));
        assertEquals("default", o.plans().defaultPlan().name(), "one limit: the policy's own is the only plan");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // the option the message names | the value it names | the line
        "default-plan | gold | api = fixed-window key=ip plan=header:P plans=free:5/1m,pro:20/1m default-plan=gold",
        "default-plan | | api = fixed-window key=ip plan=header:P plans=free:5/1m,pro:20/1m",
        "plans | free:5/1m,free:20/1m | api = fixed-window key=ip plan=header:P plans=free:5/1m,free:20/1m default-plan=free",
        "plans | free:5/1m,pro:20 | api = fixed-window key=ip plan=header:P plans=free:5/1m,pro:20 default-plan=free",
        "plans | free:5/1m,pro | api = fixed-window key=ip plan=header:P plans=free:5/1m,pro default-plan=free",
        "plans | free:5/1m | api = fixed-window 5/1m key=ip plan=header:P plans=free:5/1m",
        "plans | a:unlimited,b:blocked | api = fixed-window key=ip plan=header:P plans=a:unlimited,b:blocked default-plan=a",
        "plans | free:5/1m | api = fixed-window key=ip plans=free:5/1m",
        "plan | header:P | api = fixed-window 5/1m key=ip plan=header:P",
        "default-plan | free | api = fixed-window 5/1m key=ip default-plan=free",
        "blocked-status | 451 | api = fixed-window key=ip plan=header:P plans=free:5/1m blocked-status=451",
        "blocked-status | 200 | api = fixed-window key=ip plan=header:P plans=free:5/1m,x:blocked default-plan=free blocked-status=200",
        "override | db:contracts | api = fixed-window 5/1m key=ip override=db:contracts",
        "override-ttl | 5m | api = fixed-window 5/1m key=ip override-ttl=5m",
        "override-timeout | 11s | api = fixed-window 5/1m key=ip override=bean:c override-timeout=11s",
        "override-cache | 0 | api = fixed-window 5/1m key=ip override=bean:c override-cache=0",
        "plans | free:3 | api = adaptive gradient key=ip plan=header:P plans=free:3",
        "cost | 10 | api = fixed-window key=ip cost=10 plan=header:P plans=free:5/1m,pro:20/1m default-plan=pro",
    })
    void badConfiguration_failsNamingTheParameterAndValue(String parameter, String value, String line) {
        ConfigException e = assertThrows(ConfigException.class, () -> Policy.parse(line));
        assertEquals(parameter, e.parameter(), e.getMessage());
        assertEquals(value, e.value(), e.getMessage());
        assertTrue(e.getMessage().contains("policy 'api'"), e.getMessage());
    }

    @Test
    void builder_plansOfAnotherAlgorithm_refused() {
        Plans plans = Plans.builder(KeyResolvers.header("P"))
                .plan("free", FixedWindow.builder().limit(5).window(Duration.ofMinutes(1)).build()).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Policy.builder("api")
                .algorithm(TokenBucket.of(Rate.perMinute(5))).key(KeyResolvers.ip()).plans(plans).build());
        assertTrue(e.getMessage().contains("plan 'free' must be a token-bucket limit"), e.getMessage());
    }
}
