package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.util.ArrayDeque;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The model check of counting by outcome: 8 threads released together on a frozen clock, one key,
 * each request ending with 401 or 200 at random, some held open while others start. Never more
 * counted outcomes (401s) than the limit, and the key's state at the end is exactly the limit less
 * what was counted: every right password's reservation came back, none twice.
 */
class OutcomeCountingConcurrencyTest {

    private static final int THREADS = 8;
    private static final int LIMIT = 20;

    @ParameterizedTest
    @ValueSource(strings = {
        "fixed-window 20/1h", "sliding-window 20/1h", "sliding-log 20/1h", "token-bucket 20/1h",
        "gcra 20/1h", "leaky-bucket 20/1h",
    })
    void manyThreads_wrongAndRightPasswords_neverCountMoreThanTheLimit(String algorithm) throws Exception {
        for (int run = 0; run < 5; run++) {
            EnforcerFixture f = new EnforcerFixture();
            Enforcer e = f.enforcer("login = " + algorithm + " key=ip count=401");
            AtomicInteger counted = new AtomicInteger();
            AtomicInteger admitted = new AtomicInteger();
            int seed = run;
            AllOrNothingConcurrencyTest.run(THREADS, t -> {
                SplittableRandom random = new SplittableRandom(seed * 31L + t);
                FakeRequest r = FakeRequest.get("/login").peer("192.0.2.1");
                return () -> {
                    ArrayDeque<Verdict> open = new ArrayDeque<>();
                    for (int i = 0; i < 400; i++) {
                        Verdict v = e.enforce(r);
                        if (v.admitted()) {
                            admitted.incrementAndGet();
                            open.add(v);
                        }
                        // End some of the requests in flight: up to 3 stay open while others start.
                        while (open.size() > random.nextInt(4)) {
                            end(open.poll(), random, counted);
                        }
                    }
                    while (!open.isEmpty()) {
                        end(open.poll(), random, counted);
                    }
                };
            });
            assertTrue(counted.get() <= LIMIT, algorithm + ": counted " + counted.get());
            assertTrue(admitted.get() > LIMIT, algorithm + ": right passwords were refunded, so more passed: "
                    + admitted.get());
            assertEquals(LIMIT - counted.get(), e.inspect("192.0.2.1", "login").remaining(),
                    algorithm + ": every 200 refunded exactly once");
        }
    }

    private static void end(Verdict v, SplittableRandom random, AtomicInteger counted) {
        if (random.nextInt(3) == 0) {
            counted.incrementAndGet();
            v.release(401);
        } else {
            v.release(200);
        }
    }
}
