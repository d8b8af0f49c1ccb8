package io.github.sluice.store;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long a shared store's round trips take, per operation: a histogram of fixed buckets
 * (100 µs to 1 s, and above), a count and a total, which a metrics binder reads when it is
 * scraped (the {@code sluice-micrometer} binder exports it as {@code sluice.store.latency}).
 *
 * <p>A store makes one, records into it as its calls complete, and returns it from
 * {@link Store#latency()}; the enforcer hands it to its metrics. The Redis store's operations are
 * {@code acquire} (the decision's script call), {@code release} (a release or a refund),
 * {@code renew} (a concurrency lease's renewal) and {@code probe} (its health check): it times
 * each call from the moment it is handed to the client to the moment Redis's reply (an error
 * reply included) is read, on the client's I/O thread.
 *
 * <p>Recording takes no lock and allocates nothing: three {@link LongAdder} increments after a
 * scan of the bounds. Thread-safe; the sums a reader sees may be a moment apart from each other
 * (a count that already has a call whose bucket does not yet), as with every scraped counter.
 */
public final class StoreLatency {

    /**
     * The buckets' upper bounds in nanoseconds: 100 µs to 1 s, a loopback round trip being tens of
     * microseconds and a store's command timeout tens of milliseconds.
     */
    private static final long[] BOUNDS = {100_000L, 250_000L, 500_000L, 1_000_000L, 2_500_000L, 5_000_000L,
        10_000_000L, 25_000_000L, 50_000_000L, 100_000_000L, 250_000_000L, 1_000_000_000L};

    private final String store;
    private final List<String> operations;
    private final LongAdder[] counts;
    private final LongAdder[] totals;
    /** Per operation, bucket i counts round trips in (bound i-1, bound i]; the last, those above every bound. */
    private final LongAdder[][] buckets;

    /**
     * @param store the store's name, as in its events (e.g. {@code redis})
     * @param operations the operations timed, each a name of {@code [a-z]+}; recorded by index
     * @throws NullPointerException if an argument or an operation is null
     * @throws IllegalArgumentException if there is no operation, a name is not {@code [a-z]+}, or
     *     a name is repeated
     */
    public StoreLatency(String store, String... operations) {
        this.store = Objects.requireNonNull(store, "store");
        this.operations = List.of(operations);
        if (this.operations.isEmpty()) {
            throw new IllegalArgumentException("operations must not be empty");
        }
        for (String op : this.operations) {
            if (!op.matches("[a-z]+")) {
                throw new IllegalArgumentException("operation must be [a-z]+ but was '" + op + "'");
            }
            if (this.operations.indexOf(op) != this.operations.lastIndexOf(op)) {
                throw new IllegalArgumentException("operation '" + op + "' is repeated in " + this.operations);
            }
        }
        int n = this.operations.size();
        counts = new LongAdder[n];
        totals = new LongAdder[n];
        buckets = new LongAdder[n][BOUNDS.length + 1];
        for (int i = 0; i < n; i++) {
            counts[i] = new LongAdder();
            totals[i] = new LongAdder();
            for (int b = 0; b <= BOUNDS.length; b++) {
                buckets[i][b] = new LongAdder();
            }
        }
    }

    /**
     * Records one round trip. A negative duration (a clock that stepped back) counts as 0.
     *
     * @param operation the operation's index in {@link #operations()}
     * @param nanos how long it took
     * @throws IndexOutOfBoundsException if there is no such operation
     */
    public void record(int operation, long nanos) {
        long d = Math.max(0, nanos);
        int b = 0;
        while (b < BOUNDS.length && d > BOUNDS[b]) {
            b++;
        }
        buckets[operation][b].increment();
        totals[operation].add(d);
        counts[operation].increment();
    }

    /** @return the store's name */
    public String store() {
        return store;
    }

    /** @return the operations timed, in index order; unmodifiable */
    public List<String> operations() {
        return operations;
    }

    /** @return the upper bounds of the buckets, in nanoseconds, ascending (100 µs to 1 s); a copy */
    public static long[] bounds() {
        return BOUNDS.clone();
    }

    /**
     * @param operation the operation's index
     * @return round trips of that operation recorded so far
     * @throws IndexOutOfBoundsException if there is no such operation
     */
    public long count(int operation) {
        return counts[operation].sum();
    }

    /**
     * @param operation the operation's index
     * @return their total duration, in nanoseconds
     * @throws IndexOutOfBoundsException if there is no such operation
     */
    public long totalNanos(int operation) {
        return totals[operation].sum();
    }

    /**
     * Returns the round trips of an operation that took at most one bound: a cumulative bucket,
     * as Prometheus' {@code histogram_quantile} reads them.
     *
     * @param operation the operation's index
     * @param bucket an index into {@link #bounds()}, or its length for every round trip ({@code +Inf})
     * @return the count
     * @throws IndexOutOfBoundsException if there is no such operation or bucket
     */
    public long countAtMost(int operation, int bucket) {
        LongAdder[] mine = buckets[operation];
        Objects.checkIndex(bucket, mine.length);
        long sum = 0;
        for (int i = 0; i <= bucket; i++) {
            sum += mine[i].sum();
        }
        return sum;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("StoreLatency{").append(store);
        for (int i = 0; i < operations.size(); i++) {
            long n = count(i);
            s.append(", ").append(operations.get(i)).append('=').append(n);
            if (n > 0) {
                s.append(" mean ").append(totalNanos(i) / n / 1000).append(" us");
            }
        }
        return s.append('}').toString();
    }
}
