package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.function.Executable;

/** Assertions on bad-configuration failures. */
public final class Expect {

    private Expect() {
    }

    /**
     * Asserts that {@code call} throws an IllegalArgumentException with exactly {@code message}
     * (which names the parameter, the rule and the value).
     *
     * @param message the expected message
     * @param call the call
     */
    public static void illegalArgument(String message, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertEquals(message, e.getMessage());
    }
}
