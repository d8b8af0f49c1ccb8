package io.github.sluice.bench.reactive;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Times a filter stage itself, in the CPU time of the thread that runs it: the thread's CPU clock
 * is read when the stage is subscribed ({@code t0}), when the rest of the chain behind it is
 * subscribed ({@code t1}), when the rest of the chain completes ({@code t2}), and when the stage
 * passes that completion on ({@code t3}). The stage's own CPU is {@code (t1 - t0) + (t3 - t2)}:
 * its decision, its header fields, its operators on the way in, and its release on the way out;
 * the handler (or the proxied call) between {@code t1} and {@code t2} is left out, and timed on its
 * own ({@code t2 - t1}, when on one thread). A pair whose two readings fall on different threads
 * (a thread hop) is not counted, and counted as such. The readings cost the same with any stage,
 * so a stage that does nothing is the reference: the filter's own cost is its figure minus that one.
 */
final class Probe {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final LongAdder STAGE = new LongAdder();
    private static final LongAdder INNER = new LongAdder();
    private static final LongAdder COUNTED = new LongAdder();
    private static final LongAdder INNER_COUNTED = new LongAdder();
    private static final LongAdder HOPS = new LongAdder();

    private Probe() {
    }

    /** One exchange's readings. */
    private static final class Marks {
        long t0;
        long t1;
        long t2;
        Thread in;
        Thread inner;
        Thread out;
    }

    /**
     * Wraps a stage.
     *
     * @param stage the stage: the exchange, the chain behind it, and the rest of the chain to call
     * @return the stage, timed
     */
    static <E, C> BiFunction<E, C, Mono<Void>> around(Stage<E, C> stage, BiFunction<E, C, Mono<Void>> rest) {
        return (exchange, chain) -> Mono.defer(() -> {
            Marks m = new Marks();
            m.in = Thread.currentThread();
            m.t0 = THREADS.getCurrentThreadCpuTime();
            Function<E, Mono<Void>> next = e -> Mono.defer(() -> {
                long t1 = THREADS.getCurrentThreadCpuTime();
                m.t1 = t1;
                m.inner = Thread.currentThread();
                return rest.apply(e, chain).doOnSuccess(v -> {
                    m.t2 = THREADS.getCurrentThreadCpuTime();
                    m.out = Thread.currentThread();
                });
            });
            return stage.filter(exchange, next).doOnSuccess(v -> {
                long t3 = THREADS.getCurrentThreadCpuTime();
                Thread now = Thread.currentThread();
                if (m.inner == m.in && m.out == now && m.inner != null) {
                    STAGE.add((m.t1 - m.t0) + (t3 - m.t2));
                    COUNTED.increment();
                } else {
                    HOPS.increment();
                }
                if (m.out == m.inner && m.inner != null) {
                    INNER.add(m.t2 - m.t1);
                    INNER_COUNTED.increment();
                }
            });
        });
    }

    /** A filter stage: the exchange and the rest of the chain. */
    interface Stage<E, C> {
        Mono<Void> filter(E exchange, Function<E, Mono<Void>> next);
    }

    static void reset() {
        STAGE.reset();
        INNER.reset();
        COUNTED.reset();
        INNER_COUNTED.reset();
        HOPS.reset();
    }

    /** @return the stage's CPU per counted exchange, ns */
    static double stageNs() {
        long n = COUNTED.sum();
        return n == 0 ? Double.NaN : (double) STAGE.sum() / n;
    }

    /** @return the rest of the chain's CPU per counted exchange (on one thread), ns */
    static double innerNs() {
        long n = INNER_COUNTED.sum();
        return n == 0 ? Double.NaN : (double) INNER.sum() / n;
    }

    /** @return exchanges whose stage readings fell on two threads */
    static long hops() {
        return HOPS.sum();
    }
}
