package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The reporter's thread: callers never wait for a log handler or a sink, memory stays bounded
 * whatever they do, and the sink hears the transitions one at a time, alternating, in order.
 */
class ReporterTest {

    private static final Clock REAL = Clock.system();

    /** A sink and a logger that record what they get, and block while the gate is shut. */
    private static final class Recorder implements Reporter.Sink, System.Logger {
        final ConcurrentLinkedQueue<String> told = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> threads = new ConcurrentLinkedQueue<>();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch gate = new CountDownLatch(0);

        @Override
        public void degraded(Throwable cause) {
            call("degraded " + cause.getMessage());
        }

        @Override
        public void recovered(long downNanos) {
            call("recovered " + downNanos);
        }

        private void call(String what) {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            threads.add(Thread.currentThread().getName());
            entered.countDown();
            await(gate);
            told.add(what);
            inside.decrementAndGet();
        }

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            threads.add(Thread.currentThread().getName());
            await(gate);
            logged.add(msg);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            threads.add(Thread.currentThread().getName());
            await(gate);
            logged.add(java.text.MessageFormat.format(format, params));
        }

        private static void await(CountDownLatch gate) {
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void eventually(String what, BooleanSupplier condition) {
        long deadline = REAL.nanos() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (REAL.nanos() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    void transitions_toldOnTheReportersThreadInOrder() {
        Recorder r = new Recorder();
        try (Reporter reporter = new Reporter("s", r, r, 16)) {
            reporter.opened(new RuntimeException("down"));
            eventually("the first event", () -> r.told.size() == 1);
            reporter.closed(700);
            eventually("the second event", () -> r.told.size() == 2);

            assertEquals(List.of("degraded down", "recovered 700"), List.copyOf(r.told));
            assertTrue(r.threads.stream().allMatch(t -> t.equals("sluice-redis-events-s")), r.threads::toString);
            assertEquals(0, reporter.dropped());
        }
    }

    @Test
    void transitions_sinkStuckMeanwhile_mergedSoThatTheyStillAlternate() {
        Recorder r = new Recorder();
        r.gate = new CountDownLatch(1);
        try (Reporter reporter = new Reporter("s", r, r, 16)) {
            // Given a sink stuck in telling the first degradation
            reporter.opened(new RuntimeException("1"));
            awaitQuietly(r.entered);

            // When the breaker flaps meanwhile: closed, opened, closed, opened again
            reporter.closed(10);
            reporter.opened(new RuntimeException("2"));
            reporter.closed(20);
            reporter.opened(new RuntimeException("3"));
            r.gate.countDown();

            // Then the sink hears a round trip with the latest values, still alternating
            eventually("the merged events", () -> r.told.size() == 3);
            assertEquals(List.of("degraded 1", "recovered 20", "degraded 3"), List.copyOf(r.told));
            assertEquals(0, r.overlaps.get());
            assertEquals(2, reporter.dropped(), "two transitions merged away");
            eventually("the warning about it", () -> r.logged.stream().anyMatch(l -> l.contains("merged")));
        }
    }

    @Test
    void transitions_sinkStuckOverOneRoundTrip_toldExactly() {
        Recorder r = new Recorder();
        r.gate = new CountDownLatch(1);
        try (Reporter reporter = new Reporter("s", r, r, 16)) {
            reporter.opened(new RuntimeException("1"));
            awaitQuietly(r.entered);
            reporter.closed(10);
            reporter.opened(new RuntimeException("2"));
            r.gate.countDown();

            eventually("the events", () -> r.told.size() == 3);
            assertEquals(List.of("degraded 1", "recovered 10", "degraded 2"), List.copyOf(r.told));
            assertEquals(0, reporter.dropped());
        }
    }

    @Test
    void transitions_sinkStuckOverAnOddNumber_toldAsTheNetTransition() {
        Recorder r = new Recorder();
        r.gate = new CountDownLatch(1);
        try (Reporter reporter = new Reporter("s", r, r, 16)) {
            reporter.opened(new RuntimeException("1"));
            awaitQuietly(r.entered);
            reporter.closed(10);
            reporter.opened(new RuntimeException("2"));
            reporter.closed(20);
            r.gate.countDown();

            eventually("the events", () -> r.told.size() == 2);
            assertEquals(List.of("degraded 1", "recovered 20"), List.copyOf(r.told));
            assertEquals(2, reporter.dropped());
        }
    }

    @Test
    void log_backendStuck_callersNeverWait_linesBeyondTheCapacityDroppedAndCounted() throws Exception {
        Recorder r = new Recorder();
        r.gate = new CountDownLatch(1);
        try (Reporter reporter = new Reporter("s", r, r, 100)) {
            // Given a log handler that hangs on its first line
            reporter.log(System.Logger.Level.WARNING, "first");
            eventually("the handler to hang", () -> r.threads.size() == 1);

            // When 8 threads released together log 1000 lines each
            int threads = 8;
            CyclicBarrier go = new CyclicBarrier(threads);
            List<Thread> all = new ArrayList<>();
            long[] slowest = new long[threads];
            for (int t = 0; t < threads; t++) {
                int me = t;
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                    } catch (Exception e) {
                        return;
                    }
                    for (int i = 0; i < 1000; i++) {
                        long t0 = REAL.nanos();
                        reporter.log(System.Logger.Level.DEBUG, "line {0}", i);
                        slowest[me] = Math.max(slowest[me], REAL.nanos() - t0);
                    }
                });
                thread.start();
                all.add(thread);
            }
            for (Thread t : all) {
                t.join(10_000);
                assertFalse(t.isAlive(), "a caller waited for the stuck handler");
            }

            // Then every caller returned, the queue held its capacity, the rest was counted
            assertEquals(8 * 1000 - 100, reporter.dropped());
            r.gate.countDown();
            eventually("the queued lines and the warning", () -> r.logged.size() == 1 + 100 + 1);
            assertTrue(r.logged.stream().anyMatch(l -> l.contains("7900 log lines dropped")), r.logged::toString);
        }
    }

    @Test
    void close_sinkStuck_returnsWithinItsTimeout() {
        Recorder r = new Recorder();
        r.gate = new CountDownLatch(1);
        Reporter reporter = new Reporter("s", r, r, 16);
        try {
            reporter.opened(new RuntimeException("1"));
            awaitQuietly(r.entered);

            long t0 = REAL.nanos();
            reporter.close(200_000_000L);
            long took = REAL.nanos() - t0;

            assertTrue(took < 5_000_000_000L, "close took " + took / 1e6 + " ms");
            reporter.log(System.Logger.Level.INFO, "after close");
            assertEquals(1, reporter.dropped(), "a line logged after close is dropped, not queued");
        } finally {
            r.gate.countDown();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            assertTrue(latch.await(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
