package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * On a JAX-RS 3.1 runtime the feature must leave exception mapping to the runtime's own default
 * mapper: registering Sluice's would put a second catch-all in the application for nothing. (The
 * javax build tests the opposite, in {@code jaxrs-javax}, and does not run this class.)
 */
class UnmappedExceptionsOnJaxRs31Test {

    @Test
    void needed_onJaxRs31_isFalse() {
        assertFalse(UnmappedExceptions.needed(), "jakarta.ws.rs 3.1 has SeBootstrap and a default mapper");
    }
}
