package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.spring.boot.app.TestApplication;
import io.github.sluice.spring.boot.boot4bad.Misspelt;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Mistakes fail a real Boot 4.0 start-up (embedded Tomcat 11 on a free port), with a message that
 * names the property or the method and the value (the Boot 3.5 start-up cases, on the real
 * application rather than a context runner).
 */
class StartupBoot4Test {

    private static String failure(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append('\n');
        }
        return b.toString();
    }

    @Test
    void badPolicy_failsStartUpNamingThePropertyAndTheRule() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> new SpringApplicationBuilder(TestApplication.class)
                .run("--server.port=0", "--sluice.policies.per-ip=token-bucket 100/1m brust=5 key=ip").close());
        String message = failure(e);
        assertTrue(message.contains("property 'sluice.policies.per-ip' (policy 'per-ip'): brust='5'"), message);
        assertTrue(message.contains("did you mean 'burst'?"), message);
    }

    @Test
    void rateLimited_unknownPolicyName_failsStartUpNamingTheMethod() {
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> new SpringApplicationBuilder(TestApplication.class, Misspelt.class)
                        .run("--server.port=0").close());
        String message = failure(e);
        assertTrue(message.contains("@RateLimited([per-kye]) on " + Misspelt.class.getName() + ".hello"), message);
        assertTrue(message.contains("unknown policy 'per-kye'"), message);
    }
}
