package io.github.sluice.redis.internal;

import java.util.Objects;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The store's own thread for everything that may block and is not a decision: log lines and the
 * circuit breaker's transitions, which the {@link Sink} turns into log lines and listener calls.
 * A log handler that writes to a full pipe, or a listener that posts to a webhook, then slows
 * this thread only; never a request thread, never a Lettuce I/O thread.
 *
 * <h2>Log lines</h2>
 * This class is a {@link System.Logger} whose {@code log} methods only queue the line, without
 * calling the logger it delivers to: at most {@code capacity} lines wait; beyond that a line is
 * dropped and counted ({@link #dropped()}), and the count is logged once the thread catches up.
 * Nothing is formatted on the calling thread.
 *
 * <h2>Transitions</h2>
 * {@link #opened} and {@link #closed} are called by the breaker under its lock, so their order is
 * the order of the transitions; they record the transition and wake the thread, nothing more. The
 * thread tells the sink every transition in that order, one call at a time: degraded, recovered,
 * degraded... If the sink is so slow that several transitions happened since the last one told,
 * they are merged so as to keep that alternation: the sink hears the latest degradation (with the
 * latest cause) and, if the store has recovered since, the latest recovery (with its downtime);
 * the transitions merged away are counted in {@link #dropped()}. Memory stays bounded whatever
 * the sink does.
 *
 * <p>Thread-safe. The calling side takes no lock except the breaker's, and allocates one small
 * object per log line.
 */
public final class Reporter implements System.Logger, CircuitBreaker.Transitions, AutoCloseable {

    /** Told about transitions, on the reporter's thread, one call at a time. */
    public interface Sink {
        /**
         * The store degraded.
         *
         * @param cause the failure that opened the breaker
         */
        void degraded(Throwable cause);

        /**
         * The store recovered.
         *
         * @param downNanos how long it was degraded, nanoseconds
         */
        void recovered(long downNanos);
    }

    private final String name;
    private final System.Logger backend;
    private final Sink sink;
    private final int capacity;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Line> lines = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong droppedLines = new AtomicLong();
    private final AtomicLong mergedTransitions = new AtomicLong();
    private volatile boolean stopping;

    /** Transitions recorded so far: odd while open. Guarded by {@code this}, like the next two. */
    private long recorded;
    private Throwable lastCause;
    private long lastDownNanos;

    /** Transitions told to the sink so far. Reporter thread only, like {@code reportedDrops}. */
    private long told;
    private long reportedDrops;

    /**
     * Starts the reporter's thread, a daemon named {@code sluice-redis-events-<name>}.
     *
     * @param name the store's name
     * @param backend the logger lines are delivered to
     * @param sink told about transitions
     * @param capacity the most lines waiting, {@code >= 1}
     * @throws IllegalArgumentException if {@code capacity < 1}
     */
    public Reporter(String name, System.Logger backend, Sink sink, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1 but was " + capacity);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.backend = Objects.requireNonNull(backend, "backend");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.capacity = capacity;
        this.thread = new Thread(this::run, "sluice-redis-events-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    /** @return the reporter's thread */
    public Thread thread() {
        return thread;
    }

    /** @return log lines dropped and transitions merged so far because the thread lagged */
    public long dropped() {
        return droppedLines.get() + mergedTransitions.get();
    }

    @Override
    public String getName() {
        return backend.getName();
    }

    /** Asks the logger this reporter delivers to; only used by the {@code Supplier} defaults. */
    @Override
    public boolean isLoggable(Level level) {
        return backend.isLoggable(level);
    }

    /** Queues the line; never blocks. */
    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        offer(new Line(level, bundle, msg, null, thrown));
    }

    /** Queues the line; never blocks. The parameters are formatted later, on the thread. */
    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        offer(new Line(level, bundle, format, params, null));
    }

    @Override
    public void opened(Throwable cause) {
        synchronized (this) {
            recorded++;
            lastCause = cause;
        }
        LockSupport.unpark(thread);
    }

    @Override
    public void closed(long downNanos) {
        synchronized (this) {
            recorded++;
            lastDownNanos = downNanos;
        }
        LockSupport.unpark(thread);
    }

    /**
     * Delivers what is queued and stops the thread, waiting at most {@code timeoutNanos}; a sink
     * or a handler still blocked then is interrupted and left behind (the thread is a daemon).
     * Lines logged afterwards are dropped.
     *
     * @param timeoutNanos the longest wait, nanoseconds
     */
    public void close(long timeoutNanos) {
        stopping = true;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.timedJoin(thread, Math.max(1, timeoutNanos));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            thread.interrupt();
        }
    }

    /** Same as {@code close(1 s)}. */
    @Override
    public void close() {
        close(TimeUnit.SECONDS.toNanos(1));
    }

    private void offer(Line line) {
        if (stopping || queued.incrementAndGet() > capacity) {
            if (!stopping) {
                queued.decrementAndGet();
            }
            droppedLines.incrementAndGet();
            return;
        }
        lines.add(line);
        LockSupport.unpark(thread);
    }

    private void run() {
        while (true) {
            boolean worked = false;
            for (Line l; (l = lines.poll()) != null; ) {
                queued.decrementAndGet();
                deliver(l);
                worked = true;
            }
            worked |= tell();
            reportDrops();
            if (!worked) {
                if (stopping) {
                    return;
                }
                LockSupport.park(this);
            }
        }
    }

    /** @return whether a transition was told */
    private boolean tell() {
        long target;
        Throwable cause;
        long down;
        synchronized (this) {
            target = recorded;
            cause = lastCause;
            down = lastDownNanos;
        }
        long gap = target - told;
        if (gap == 0) {
            return false;
        }
        boolean wasOpen = (told & 1) == 1;
        boolean isOpen = (target & 1) == 1;
        if (wasOpen == isOpen) {
            // An even number of transitions: a round trip, told as one.
            if (wasOpen) {
                recovered(down);
                degraded(cause);
            } else {
                degraded(cause);
                recovered(down);
            }
            mergedTransitions.addAndGet(gap - 2);
        } else {
            if (isOpen) {
                degraded(cause);
            } else {
                recovered(down);
            }
            mergedTransitions.addAndGet(gap - 1);
        }
        told = target;
        return true;
    }

    private void degraded(Throwable cause) {
        try {
            sink.degraded(cause);
        } catch (Throwable e) {
            survive(e);
            deliver(new Line(Level.WARNING, null, "sluice-redis '" + name + "': the listener failed", null, e));
        }
    }

    private void recovered(long downNanos) {
        try {
            sink.recovered(downNanos);
        } catch (Throwable e) {
            survive(e);
            deliver(new Line(Level.WARNING, null, "sluice-redis '" + name + "': the listener failed", null, e));
        }
    }

    /** A listener's or a handler's exception must not stop the thread; the JVM's own errors do. */
    private static void survive(Throwable e) {
        if (e instanceof VirtualMachineError v) {
            throw v;
        }
    }

    private void reportDrops() {
        long now = dropped();
        if (now != reportedDrops) {
            deliver(new Line(Level.WARNING, null, "sluice-redis ''{0}'': {1} log lines dropped and {2}"
                    + " breaker transitions merged so far: the log handler or the listener is too slow",
                    new Object[] {name, Long.toString(droppedLines.get()),
                        Long.toString(mergedTransitions.get())}, null));
            reportedDrops = now;
        }
    }

    private void deliver(Line l) {
        try {
            if (l.params != null) {
                backend.log(l.level, l.bundle, l.format, l.params);
            } else {
                backend.log(l.level, l.bundle, l.format, l.thrown);
            }
        } catch (Throwable e) {
            // A broken handler must not stop the thread; there is nowhere left to report it.
            survive(e);
        }
    }

    private record Line(Level level, ResourceBundle bundle, String format, Object[] params,
            Throwable thrown) {
    }
}
