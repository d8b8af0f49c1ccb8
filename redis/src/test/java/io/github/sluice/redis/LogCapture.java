package io.github.sluice.redis;

import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what the Redis store logs through {@code System.Logger} "io.github.sluice.redis"
 * (backed by java.util.logging in the tests), every level included, with the thread that logged.
 * Optionally blocks in every record until {@link #unblock()}, as a handler writing to a full pipe
 * or a hung remote syslog would.
 */
final class LogCapture extends Handler implements AutoCloseable {

    /** One captured record. */
    record Line(Level level, String message, String thread) {
    }

    private final Logger logger = Logger.getLogger("io.github.sluice.redis");
    private final Level levelBefore;
    private final boolean parentBefore;
    private final CountDownLatch gate;
    final ConcurrentLinkedQueue<Line> lines = new ConcurrentLinkedQueue<>();

    private LogCapture(CountDownLatch gate) {
        this.gate = gate;
        this.levelBefore = logger.getLevel();
        this.parentBefore = logger.getUseParentHandlers();
        setLevel(Level.ALL);
        logger.setLevel(Level.ALL);
        logger.addHandler(this);
        // Every level is on: keep DEBUG lines off the console.
        logger.setUseParentHandlers(false);
    }

    /** @return a capture whose records return at once */
    static LogCapture start() {
        return new LogCapture(null);
    }

    /** @return a capture that blocks in every record until {@link #unblock()} */
    static LogCapture blocking() {
        return new LogCapture(new CountDownLatch(1));
    }

    /** Lets blocked records return, and later ones not block. */
    void unblock() {
        if (gate != null) {
            gate.countDown();
        }
    }

    /** @return the lines so far */
    List<Line> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void publish(LogRecord r) {
        String message = r.getParameters() == null || r.getParameters().length == 0
                ? r.getMessage() : MessageFormat.format(r.getMessage(), r.getParameters());
        lines.add(new Line(r.getLevel(), message, Thread.currentThread().getName()));
        if (gate != null) {
            try {
                // Bounded so that a test that fails does not hang the build.
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        unblock();
        logger.removeHandler(this);
        logger.setLevel(levelBefore);
        logger.setUseParentHandlers(parentBefore);
    }
}
