package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A concurrency policy's admissions and requests in flight share one word (see
 * {@link PolicyMetrics}): counted in and out by one atomic addition each, read as one instant's
 * pair, and moved out of the word every 2^39 admissions without a reader seeing a count go back or
 * jump.
 */
class InFlightWordTest {

    private static final long MOVE = 1L << 39;
    private static final MutableDecision ALLOW = new MutableDecision().allow(10, 9, 0);
    private static final MutableDecision SHAPE = new MutableDecision().shape(10, 9, 0, 1_000_000);

    private final EnforcerMetrics metrics = EnforcerMetrics.builder().build();
    private final Policy slots = Policy.parse("slots = concurrency 10 key=ip");
    private final Policy rate = Policy.parse("rate = token-bucket 10/1s key=ip");
    /** The readers started in the middle of a move, to wait for. */
    private final List<Thread> readers = new java.util.ArrayList<>();

    InFlightWordTest() {
        metrics.track(List.of(slots, rate), null);
    }

    @Test
    void admissionsShapingsAndReleases_countExactly_fromTheWord() {
        PolicyMetrics m = metrics.policy("slots");
        for (int i = 0; i < 5; i++) {
            metrics.allowed(slots, "192.0.2.1", ALLOW);
        }
        metrics.shaped(slots, "192.0.2.1", SHAPE);
        metrics.released(slots, "192.0.2.1", 1);
        metrics.released(slots, "192.0.2.1", 1);

        assertEquals(5, m.allowed());
        assertEquals(1, m.shaped());
        assertEquals(2, m.released());
        assertEquals(4, m.inFlight());
    }

    @Test
    void aRatePolicy_hasNothingInFlight_andCountsByItsAdders() {
        PolicyMetrics r = metrics.policy("rate");
        metrics.allowed(rate, "192.0.2.1", ALLOW);
        metrics.allowed(rate, "192.0.2.1", ALLOW);

        assertEquals(2, r.allowed());
        assertEquals(0, r.inFlight());
        assertEquals(0, r.released());
    }

    @Test
    void aConcurrencyPolicyChangedToARateLimit_countsEachAdmissionByTheVersionThatMadeIt() {
        // Given two requests in flight under the concurrency version of "slots"
        PolicyMetrics m = metrics.policy("slots");
        metrics.allowed(slots, "192.0.2.1", ALLOW);
        metrics.allowed(slots, "192.0.2.1", ALLOW);
        Policy changed = Policy.parse("slots = token-bucket 10/1s key=ip");

        // When the policy becomes a rate limit at run time and admits many more, which are never
        // released (a rate limit holds nothing), and the two old requests end
        for (int i = 0; i < 1_000; i++) {
            metrics.allowed(changed, "192.0.2.1", ALLOW);
        }
        metrics.released(slots, "192.0.2.1", 1);
        metrics.released(slots, "192.0.2.1", 1);

        // Then nothing is left in flight, and every admission is counted once
        assertEquals(0, m.inFlight(), "the rate limit's admissions never counted in flight");
        assertEquals(1_002, m.allowed());
        assertEquals(2, m.released());
    }

    @Test
    void aReleaseWithNothingInFlight_borrowsNothingFromTheAdmissions() {
        PolicyMetrics m = metrics.policy("slots");
        metrics.allowed(slots, "192.0.2.1", ALLOW);
        metrics.released(slots, "192.0.2.1", 1);

        metrics.released(slots, "192.0.2.1", 1); // an event without its admission: a bug elsewhere

        assertEquals(1, m.allowed());
        assertEquals(0, m.inFlight());
        assertEquals(1, m.released());
    }

    @Test
    void theAdmissionThatFillsHalfTheField_movesAdmissionsOut_countsStayExact() {
        // Given a policy 3 admissions short of the move, with 2 requests in flight after it
        PolicyMetrics m = metrics.policy("slots");
        m.startAdmissionsAt(MOVE - 3);
        metrics.allowed(slots, "192.0.2.1", ALLOW);
        metrics.allowed(slots, "192.0.2.1", ALLOW);

        // When admissions cross the move, in flight across it, and are released after it
        for (int i = 0; i < 4; i++) {
            metrics.allowed(slots, "192.0.2.1", ALLOW);
        }
        for (int i = 0; i < 5; i++) {
            metrics.released(slots, "192.0.2.1", 1);
        }

        // Then the field was halved exactly once, nothing was lost, none counted twice
        assertEquals(3, m.admittedInWord());
        assertEquals(MOVE + 3, m.allowed());
        assertEquals(1, m.inFlight());
        assertEquals(MOVE + 2, m.released());
    }

    @Test
    void aReadInTheMiddleOfAMove_waitsForItsEnd_andIsExact() throws Exception {
        // Given a policy one admission short of the move, whose move stops half-way while a
        // reader on another thread reads (the word already lowered, the moved count not yet raised)
        PolicyMetrics m = metrics.policy("slots");
        m.startAdmissionsAt(MOVE - 1);
        long[] read = {-1, -1};
        boolean[] waited = {false};
        m.duringMove = () -> {
            Thread reader = new Thread(() -> {
                read[0] = m.allowed();
                read[1] = m.released();
            });
            reader.start();
            try {
                reader.join(100); // with the seqlock it cannot finish before the move does
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            waited[0] = reader.isAlive();
            readers.add(reader);
        };

        // When the admission that fills half the field moves admissions out
        metrics.allowed(slots, "192.0.2.1", ALLOW);
        readers.get(0).join();

        // Then the reader waited for the move, and read every admission, none twice
        assertTrue(waited[0], "the reader returned in the middle of the move");
        assertEquals(MOVE, read[0]);
        assertEquals(MOVE - 1, read[1]);
    }

    @Test
    void admissionsMovedOutWhileReadersRead_noReadGoesBack_orAhead() throws Exception {
        // Given a policy near the move, one thread counting requests in and out across it
        PolicyMetrics m = metrics.policy("slots");
        long start = MOVE - 50_000;
        m.startAdmissionsAt(start);
        int requests = 100_000;
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong wrong = new AtomicLong();
        CountDownLatch go = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            long lastAllowed = start;
            long lastReleased = 0;
            while (!done.get()) {
                go.countDown();
                long a = m.allowed();
                long r = m.released();
                long f = m.inFlight();
                // one request at a time: at any instant 0 or 1 in flight, and counts only grow
                if (a < lastAllowed || r < lastReleased || a > start + requests || f < 0 || f > 1) {
                    wrong.incrementAndGet();
                }
                lastAllowed = a;
                lastReleased = r;
            }
        });
        reader.start();
        go.await();

        // When it counts 100,000 requests in and out, one at a time
        for (int i = 0; i < requests; i++) {
            metrics.allowed(slots, "192.0.2.1", ALLOW);
            metrics.released(slots, "192.0.2.1", 1);
        }
        done.set(true);
        reader.join();

        // Then the reader never saw a count go back, jump ahead, or an impossible pair
        assertEquals(0, wrong.get());
        assertEquals(start + requests, m.allowed());
        assertEquals(requests, m.released() - start);
        assertEquals(0, m.inFlight());
        assertTrue(m.allowed() > MOVE, "the move was crossed");
    }
}
