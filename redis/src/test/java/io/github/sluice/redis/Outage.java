package io.github.sluice.redis;

import io.github.sluice.redis.testing.RedisServer;
import java.io.IOException;

/**
 * Three ways a real redis-server stops answering, each begun and ended by the test.
 */
enum Outage {
    /** {@code CLIENT PAUSE <ms> ALL}: the server is up, the connection open, nothing answered. */
    CLIENT_PAUSE {
        @Override
        void begin(RedisServer redis, long millis) {
            redis.call("CLIENT", "PAUSE", Long.toString(millis), "ALL");
        }

        @Override
        void end(RedisServer redis) {
            // The pause ends by itself after its duration.
        }
    },
    /**
     * SIGSTOP, then SIGCONT: the process is frozen, its sockets open; the kernel still accepts
     * connections and data but nothing is answered, as with a frozen VM.
     */
    SIGSTOP {
        @Override
        void begin(RedisServer redis, long millis) throws IOException {
            redis.suspend();
        }

        @Override
        void end(RedisServer redis) throws IOException {
            redis.resume();
        }
    },
    /** SIGKILL, then a restart on the same port: connections are reset, data and scripts lost. */
    SIGKILL {
        @Override
        void begin(RedisServer redis, long millis) throws InterruptedException {
            redis.kill();
        }

        @Override
        void end(RedisServer redis) throws IOException {
            redis.start();
        }
    };

    /**
     * Begins the outage.
     *
     * @param redis the server
     * @param millis how long it will last (for outages that end by themselves)
     */
    abstract void begin(RedisServer redis, long millis) throws IOException, InterruptedException;

    /** Ends the outage. */
    abstract void end(RedisServer redis) throws IOException, InterruptedException;

    /** @return whether the data written before the outage survives it */
    boolean keepsData() {
        return this != SIGKILL;
    }
}
