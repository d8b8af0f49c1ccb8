package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final FakeClock clock = new FakeClock();
    private final List<String> events = new ArrayList<>();
    private final CircuitBreaker breaker = new CircuitBreaker(3, clock, new CircuitBreaker.Transitions() {
        @Override
        public void opened(Throwable cause) {
            events.add("opened: " + cause.getMessage());
        }

        @Override
        public void closed(long downNanos) {
            events.add("closed after " + downNanos);
        }
    });

    @Test
    void failure_consecutiveUpToTheThreshold_opensOnce() {
        breaker.failure(new RuntimeException("1"));
        breaker.failure(new RuntimeException("2"));
        assertFalse(breaker.isOpen());

        breaker.failure(new RuntimeException("3"));
        breaker.failure(new RuntimeException("4"));

        assertTrue(breaker.isOpen());
        assertEquals(List.of("opened: 3"), events);
    }

    @Test
    void success_betweenFailures_resetsTheCount() {
        breaker.failure(new RuntimeException("1"));
        breaker.failure(new RuntimeException("2"));
        breaker.success();
        breaker.failure(new RuntimeException("3"));
        breaker.failure(new RuntimeException("4"));

        assertFalse(breaker.isOpen());
    }

    @Test
    void close_reportsTheDowntimeOnce_andCountsAfresh() {
        breaker.open(new RuntimeException("down"));
        clock.advanceNanos(700);

        breaker.close();
        breaker.close();
        breaker.failure(new RuntimeException("a"));

        assertFalse(breaker.isOpen());
        assertEquals(List.of("opened: down", "closed after 700"), events);
    }

    @Test
    void halt_opensWithoutTellingAnyone_andStaysOpen() {
        breaker.halt();
        breaker.close();
        breaker.failure(new RuntimeException("a"));
        breaker.open(new RuntimeException("b"));

        assertTrue(breaker.isOpen());
        assertEquals(List.of(), events);
    }

    @Test
    void transitions_areToldUnderTheBreakersLock() {
        List<Boolean> held = new ArrayList<>();
        CircuitBreaker[] self = new CircuitBreaker[1];
        self[0] = new CircuitBreaker(1, clock, new CircuitBreaker.Transitions() {
            @Override
            public void opened(Throwable cause) {
                held.add(Thread.holdsLock(self[0]));
            }

            @Override
            public void closed(long downNanos) {
                held.add(Thread.holdsLock(self[0]));
            }
        });

        self[0].failure(new RuntimeException("x"));
        self[0].close();

        // so that a concurrent close cannot be told before the open it follows
        assertEquals(List.of(true, true), held);
    }
}
