package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Partitions chosen by the policy language: {@code partition=header:X-Tier} picks the partition
 * of each request, {@code partitions=paid:70,free:30} their guaranteed shares. The attack it stops:
 * a flood of free-tier requests that takes the whole limit while paying users are idle must not
 * lock them out when they come back; and an idle share is lent, not wasted.
 */
class AdaptivePartitionsThroughEnforcerTest {

    private static final String TIERED = "api = adaptive gradient min=10 max=10 initial=10 key=global"
            + " partition=header:X-Tier partitions=paid:70,free:30";

    private static Verdict request(Enforcer e, String tier) {
        FakeRequest r = FakeRequest.get("/");
        if (tier != null) {
            r.header("X-Tier", tier);
        }
        return e.enforce(r);
    }

    @Test
    void freeFlood_borrowsTheIdleShare_butPaidStillGetsItsSeventyPercent() {
        Enforcer e = new EnforcerFixture().enforcer(TIERED);
        List<Verdict> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Verdict v = request(e, "free");
            assertTrue(v.admitted(), "free request " + i + " borrows the idle paid share: " + v);
            held.add(v);
        }
        assertTrue(request(e, "free").denied(), "the 11th free request exceeds the limit");
        assertTrue(request(e, null).denied(), "a request of no partition only borrows");
        assertTrue(request(e, "gold").denied(), "an unknown partition is none: it only borrows");
        for (int i = 0; i < 7; i++) {
            Verdict v = request(e, "paid");
            assertTrue(v.admitted(), "paid request " + i + " is within its guaranteed 7 of 10: " + v);
            held.add(v);
        }
        assertTrue(request(e, "paid").denied(), "beyond its share, paid borrows only within the limit");
        held.forEach(v -> v.release(200));
        for (int i = 0; i < 10; i++) {
            Verdict v = request(e, null);
            assertTrue(v.admitted(), "every permit came back: " + v);
            held.add(v);
        }
        held.forEach(v -> v.release(200));
    }
}
