package io.github.sluice.adaptive;

import io.github.sluice.testing.FakeClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A discrete-event simulation of a server behind a concurrency limiter, on a manual clock: no
 * thread, no sleep, the same numbers on every run.
 *
 * <p>The server has a number of workers and an unbounded FIFO queue; a request's service time
 * is drawn from an Erlang distribution (the sum of {@code k} exponentials: latencies vary from
 * request to request, with a tail). Its capacity is {@code workers / mean service time}
 * requests per second; offered load beyond it queues, so latency grows with the queue the
 * limiter lets build. Requests arrive as a Poisson process whose rate is a factor of the current
 * capacity, phase by phase; a phase may also change the number of workers (an instance losing
 * half its capacity). Each arrival asks the gate; an admitted request is released when the
 * server completes it, with its latency measured on the same clock.
 */
final class Simulation {

    /** One phase of the scenario. */
    record Phase(String name, double seconds, double load, int workers) {
    }

    /** The scenario: phases, service times, the random seed, the sampling interval. */
    record Scenario(List<Phase> phases, double serviceMillis, int erlang, long seed, double tickMillis) {

        /** The seed of the published charts and of the side-by-side comparison. */
        static final long STANDARD_SEED = 17;
        /** Seconds per phase: long enough for every limiter compared, Netflix's windowed ones included, to settle. */
        static final double PHASE_SECONDS = 30;

        /** The scenario of the documentation: 0.5x, 3x, 3x at half the capacity, 0.5x; 30 s each. */
        static Scenario standard() {
            return of(PHASE_SECONDS, STANDARD_SEED);
        }

        /**
         * The four phases of the documentation, each {@code seconds} long.
         *
         * @param seconds the length of each phase, simulated seconds
         * @param seed the seed of the arrivals and service times
         */
        static Scenario of(double seconds, long seed) {
            return new Scenario(List.of(
                    new Phase("light", seconds, 0.5, 100),
                    new Phase("overload", seconds, 3, 100),
                    new Phase("halved", seconds, 3, 50),
                    new Phase("light-halved", seconds, 0.5, 50)), 10, 4, seed, 50);
        }

        long startNanos(int phase) {
            double s = 0;
            for (int i = 0; i < phase; i++) {
                s += phases.get(i).seconds;
            }
            return (long) (s * 1e9);
        }

        long endNanos(int phase) {
            return startNanos(phase + 1);
        }
    }

    /**
     * Per-phase results. {@code goodput} is the phase's completions as a share of what its
     * workers could complete in it, capped at 1: completions above it are an earlier phase's
     * queue draining, not more service.
     */
    record PhaseStats(Phase phase, long offered, long admitted, long completed, double goodput,
            double p50Millis, double p99Millis, double meanLimit, long convergedAfter) {
    }

    /** One sample of the time series. */
    record Tick(double seconds, String phase, int workers, long limit, long inFlight,
            double goodput, double p50Millis, double p99Millis) {
    }

    /** A run of one gate through the scenario. */
    record Run(String name, List<PhaseStats> phases, List<Tick> ticks) {
        PhaseStats phase(String name) {
            return phases.stream().filter(p -> p.phase.name.equals(name)).findFirst().orElseThrow();
        }
    }

    /** Samples in a row within the band for a limit to count as settled. */
    static final int SETTLE_TICKS = 5;

    private static final int ARRIVAL = 0;
    private static final int COMPLETION = 1;
    private static final int TICK = 2;
    private static final int PHASE = 3;

    private static final class Event implements Comparable<Event> {
        final long time;
        final long seq;
        final int kind;
        final Job job;

        Event(long time, long seq, int kind, Job job) {
            this.time = time;
            this.seq = seq;
            this.kind = kind;
            this.job = job;
        }

        @Override
        public int compareTo(Event o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private static final class Job {
        final Object token;
        final long admittedAt;
        final long service;

        Job(Object token, long admittedAt, long service) {
            this.token = token;
            this.admittedAt = admittedAt;
            this.service = service;
        }
    }

    private final Scenario scenario;
    private final FakeClock clock;
    private final long origin;
    /** Two streams, so that every gate sees the same arrivals whatever it admits. */
    private final SplittableRandom arrivals;
    private final SplittableRandom services;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final ArrayDeque<Job> queue = new ArrayDeque<>();
    private long seq;
    private int phase;
    private int workers;
    private int busy;
    private long inSystem;
    /** Integral of busy workers over time, for the CPU gauge; and when it was last advanced. */
    private double busyIntegral;
    private long integralAt;

    private Simulation(Scenario scenario, FakeClock clock) {
        this.scenario = scenario;
        this.clock = clock;
        this.origin = clock.nanos();
        SplittableRandom root = new SplittableRandom(scenario.seed);
        this.arrivals = root.split();
        this.services = root.split();
        this.workers = scenario.phases.get(0).workers;
        this.integralAt = origin;
    }

    /**
     * Runs a gate, made on the simulation's clock (and CPU gauge), through the scenario.
     *
     * @param scenario the scenario
     * @param gate makes the gate from the clock and the simulated CPU gauge
     * @return the results
     */
    static Run run(Scenario scenario, Function<Simulation, Gate> gate) {
        Simulation sim = new Simulation(scenario, new FakeClock());
        return sim.run(gate.apply(sim));
    }

    /** @return the simulation's clock */
    FakeClock clock() {
        return clock;
    }

    /**
     * A CPU gauge over the simulated server: the share of its workers busy since the previous
     * reading, read at most every 500 ms, like {@link CpuGauge#process()}.
     */
    CpuGauge cpu() {
        return new CpuGauge() {
            private long next = Long.MIN_VALUE;
            private long lastAt = origin;
            private double lastIntegral;
            private double value = -1;

            @Override
            public double usage(long now) {
                if (now >= next) {
                    advance(now);
                    long elapsed = now - lastAt;
                    if (elapsed > 0) {
                        value = (busyIntegral - lastIntegral) / ((double) elapsed * workers);
                    }
                    lastAt = now;
                    lastIntegral = busyIntegral;
                    next = now + 500_000_000L;
                }
                return value;
            }
        };
    }

    private void advance(long now) {
        busyIntegral += (double) busy * (now - integralAt);
        integralAt = now;
    }

    private void schedule(long time, int kind, Job job) {
        events.add(new Event(time, seq++, kind, job));
    }

    private double capacityPerNano() {
        return workers / (scenario.serviceMillis * 1e6);
    }

    private long service() {
        double mean = scenario.serviceMillis * 1e6 / scenario.erlang;
        double total = 0;
        for (int i = 0; i < scenario.erlang; i++) {
            total += -Math.log(1 - services.nextDouble()) * mean;
        }
        return Math.max(1, (long) total);
    }

    private long interArrival() {
        double rate = scenario.phases.get(phase).load * capacityPerNano();
        return Math.max(1, (long) (-Math.log(1 - arrivals.nextDouble()) / rate));
    }

    private Run run(Gate gate) {
        int phases = scenario.phases.size();
        long end = origin + scenario.startNanos(phases);
        long tick = (long) (scenario.tickMillis * 1e6);
        long[] offered = new long[phases];
        long[] admitted = new long[phases];
        long[] completed = new long[phases];
        List<Longs> latencies = new ArrayList<>();
        for (int i = 0; i < phases; i++) {
            latencies.add(new Longs());
            if (i > 0) {
                schedule(origin + scenario.startNanos(i), PHASE, null);
            }
        }
        List<Tick> ticks = new ArrayList<>();
        Longs tickLatencies = new Longs();
        long tickCompleted = 0;
        List<long[]> limitSamples = new ArrayList<>(); // {phase, time, limit, completions so far in phase}
        schedule(origin + interArrival(), ARRIVAL, null);
        schedule(origin + tick, TICK, null);
        while (!events.isEmpty()) {
            Event e = events.poll();
            if (e.time > end) {
                break;
            }
            clock.set(e.time);
            advance(e.time);
            switch (e.kind) {
                case PHASE -> {
                    phase++;
                    workers = scenario.phases.get(phase).workers;
                    startWork(e.time);
                }
                case ARRIVAL -> {
                    offered[phase]++;
                    Object token = gate.tryAcquire();
                    if (token != null) {
                        admitted[phase]++;
                        inSystem++;
                        queue.add(new Job(token, e.time, service()));
                        startWork(e.time);
                    }
                    schedule(e.time + interArrival(), ARRIVAL, null);
                }
                case COMPLETION -> {
                    busy--;
                    inSystem--;
                    long latency = e.time - e.job.admittedAt;
                    gate.release(e.job.token, false);
                    completed[phase]++;
                    latencies.get(phase).add(latency);
                    tickLatencies.add(latency);
                    tickCompleted++;
                    startWork(e.time);
                }
                case TICK -> {
                    long limit = gate.limit();
                    double capacity = capacityPerNano() * tick;
                    long[] sorted = tickLatencies.sorted();
                    ticks.add(new Tick((e.time - origin) / 1e9, scenario.phases.get(phase).name, workers,
                            limit, inSystem, tickCompleted / capacity, millis(percentile(sorted, 0.5)),
                            millis(percentile(sorted, 0.99))));
                    limitSamples.add(new long[] {phase, e.time, limit, completed[phase]});
                    tickLatencies.clear();
                    tickCompleted = 0;
                    schedule(e.time + tick, TICK, null);
                }
                default -> throw new AssertionError(e.kind);
            }
        }
        List<PhaseStats> stats = new ArrayList<>();
        for (int i = 0; i < phases; i++) {
            Phase p = scenario.phases.get(i);
            long[] sorted = latencies.get(i).sorted();
            double capacity = p.workers / (scenario.serviceMillis / 1000) * p.seconds;
            int index = i;
            long[][] samples = limitSamples.stream().filter(s -> s[0] == index).toArray(long[][]::new);
            stats.add(new PhaseStats(p, offered[i], admitted[i], completed[i], Math.min(1, completed[i] / capacity),
                    millis(percentile(sorted, 0.5)), millis(percentile(sorted, 0.99)),
                    Arrays.stream(samples).mapToLong(s -> s[2]).average().orElse(0),
                    convergedAfter(samples, p.workers)));
        }
        return new Run(gate.name(), stats, ticks);
    }

    /** A growable array of longs: a run records about a million latencies, unboxed. */
    private static final class Longs {
        private long[] values = new long[1024];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        void clear() {
            size = 0;
        }

        long[] sorted() {
            long[] out = Arrays.copyOf(values, size);
            Arrays.sort(out);
            return out;
        }
    }

    /** Starts queued work on free workers. */
    private void startWork(long now) {
        while (busy < workers && !queue.isEmpty()) {
            Job job = queue.poll();
            busy++;
            schedule(now + job.service, COMPLETION, job);
        }
    }

    /** The band of limits, in workers, within which both targets can hold at overload. */
    static final double SETTLED_LOW = 0.9;
    static final double SETTLED_HIGH = 3.5;

    /**
     * The completions of a phase before its limit settled, measured against the capacity the
     * server has in that phase, not against where the limit itself ends: the limit has settled
     * at the first sample from which it stays between {@value #SETTLED_LOW}x and
     * {@value #SETTLED_HIGH}x the workers for {@value #SETTLE_TICKS} samples in a row. Below
     * 0.9x, a tenth of the workers idle and goodput falls under 90 %; above 3.5x, the queue the
     * limit lets stand (2.5 mean service times, about the unloaded p99) adds its wait to every
     * request and puts p99 over twice the unloaded p99. A short
     * excursion later, such as a probe, does not undo it; the count is that of the completions
     * by that sample (so at most one sampling interval late); -1 if it never does.
     */
    private static long convergedAfter(long[][] samples, int workers) {
        int run = 0;
        for (int i = 0; i < samples.length; i++) {
            long limit = samples[i][2];
            run = limit >= SETTLED_LOW * workers && limit <= SETTLED_HIGH * workers ? run + 1 : 0;
            if (run == SETTLE_TICKS) {
                return samples[i - run + 1][3];
            }
        }
        return -1;
    }

    static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    /** The latency of an idle server: percentiles of the service time alone. */
    static double[] unloaded(Scenario scenario, double... quantiles) {
        Simulation sim = new Simulation(new Scenario(scenario.phases, scenario.serviceMillis,
                scenario.erlang, scenario.seed + 1, scenario.tickMillis), new FakeClock());
        long[] sorted = new long[200_000];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = sim.service();
        }
        Arrays.sort(sorted);
        double[] out = new double[quantiles.length];
        for (int i = 0; i < quantiles.length; i++) {
            out[i] = millis(percentile(sorted, quantiles[i]));
        }
        return out;
    }
}
